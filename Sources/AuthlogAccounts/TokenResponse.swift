public import AuthlogCore
public import Foundation

/// The answer to a sign-in or a refresh (api.md).
public struct TokenResponse: Sendable {
    /// authlog's user.
    public var userID: UUID
    /// The session.
    public var sessionID: UUID
    /// Whether this sign-in registered the user.
    public var isNewUser: Bool
    /// The access token (ES256 JWT).
    public var accessToken: String
    /// When the access token expires.
    public var accessTokenExpiresAt: Timestamp
    /// The new refresh token.
    public var refreshToken: String
    /// When the refresh token expires.
    public var refreshTokenExpiresAt: Timestamp
    /// The sign-in was judged unusual for its user and recorded (`signin.flagged`): that event's id (what
    /// `POST /v1/me/activity/{event_id}/not-me` takes) and the judgements' kinds. Answered as `signin_alert`.
    public var signinAlert: (eventID: UUID, kinds: [SigninJudgement.Kind])?
    /// Whether the tokens are bound to a DPoP key (RFC 9449): answered as `token_type: DPoP`, else `Bearer`.
    public var dpopBound: Bool

    /// Creates an answer.
    public init(
        userID: UUID,
        sessionID: UUID,
        isNewUser: Bool,
        accessToken: String,
        accessTokenExpiresAt: Timestamp,
        refreshToken: String,
        refreshTokenExpiresAt: Timestamp,
        dpopBound: Bool = false
    ) {
        self.dpopBound = dpopBound
        self.userID = userID
        self.sessionID = sessionID
        self.isNewUser = isNewUser
        self.accessToken = accessToken
        self.accessTokenExpiresAt = accessTokenExpiresAt
        self.refreshToken = refreshToken
        self.refreshTokenExpiresAt = refreshTokenExpiresAt
    }

    /// The JSON body, with lowercase UUIDs and RFC 3339 UTC times, and `event_ids`: the events the request
    /// appended so far (receipts; ``AppendedEvents``).
    public var json: JSONValue {
        .object(
            [
                ("event_ids", .array((AppendedEvents.current?.ids ?? []).map { .string($0.lowercased) })),
                ("user_id", .string(self.userID.lowercased)), ("session_id", .string(self.sessionID.lowercased)),
                ("is_new_user", .bool(self.isNewUser)), ("access_token", .string(self.accessToken)),
                ("access_token_expires_at", .string(self.accessTokenExpiresAt.description)),
                ("refresh_token", .string(self.refreshToken)),
                ("refresh_token_expires_at", .string(self.refreshTokenExpiresAt.description)),
                ("token_type", .string(self.dpopBound ? "DPoP" : "Bearer")),
            ] + self.alertMembers
        )
    }

    /// `signin_alert`, when the sign-in was judged unusual.
    private var alertMembers: [(name: String, value: JSONValue)] {
        guard let alert = self.signinAlert else { return [] }
        return [
            (
                "signin_alert",
                .object([
                    ("event_id", .string(alert.eventID.lowercased)),
                    ("judgements", .array(alert.kinds.map { .string($0.rawValue) })),
                ])
            )
        ]
    }
}
