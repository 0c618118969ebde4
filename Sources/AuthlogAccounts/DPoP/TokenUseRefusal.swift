public import AuthlogCore
public import Foundation

/// A refused token the token rules answered without recording it themselves, for the HTTP layer to count into
/// its aggregated events (`token.access_refused` when ``session`` is known, else `request.refused` by address):
/// where an access token is checked (logout, `/v1/me`, receipts) a DPoP refusal, an access token that is
/// missing (``missingAccessToken``), not valid (`access_token_<reason>`: `access_token_expired`,
/// `access_token_bad_signature`, …, of no session) or of a session that ended (``sessionEnded``, on it); and
/// a DPoP refusal at revocation; a refresh that names no token of authlog's (``init(refreshRefusedFor:)``).
/// Sign-in records its own refusals, one event each, and so does a refresh of a token authlog issued.
public struct TokenUseRefusal: Sendable, Equatable {
    /// The session whose token was presented: known when the access token's signature checked out, or the
    /// refresh token was found.
    public struct Session: Sendable, Equatable {
        /// The session's user.
        public var userID: UUID
        /// The session.
        public var sessionID: UUID
        /// The client the session was issued to, when it named one.
        public var clientID: String?
        /// The presented token's id (`jti`, or the refresh token's id).
        public var tokenID: UUID
        /// `access_token` or `refresh_token`.
        public var tokenKind: TokenTypeHint

        /// Creates a session's description.
        public init(userID: UUID, sessionID: UUID, clientID: String?, tokenID: UUID, tokenKind: TokenTypeHint) {
            self.userID = userID
            self.sessionID = sessionID
            self.clientID = clientID
            self.tokenID = tokenID
            self.tokenKind = tokenKind
        }
    }

    /// The exact reason (`dpop_wrong_key`, `access_token_expired`, `session_ended`, …).
    public var reason: String

    /// The reason of a request to an access-token route that sent no token.
    public static let missingAccessToken = "access_token_missing"
    /// The reason of a valid access token whose session has ended (logged out, revoked, expired, deleted).
    public static let sessionEnded = "session_ended"
    /// The token's session, when one is known.
    public var session: Session?

    /// Creates a refusal.
    public init(reason: String, session: Session?) {
        self.reason = reason
        self.session = session
    }

    /// The refusal of an access token whose claims checked out.
    init(_ reason: String, accessToken claims: AccessTokenClaims) {
        let session = Session(
            userID: claims.userID,
            sessionID: claims.sessionID,
            clientID: claims.clientID,
            tokenID: claims.tokenID,
            tokenKind: .accessToken
        )
        self.init(reason: reason, session: session)
    }

    /// The refusal of a known refresh token.
    init(_ reason: String, refreshToken record: RefreshTokenRecord) {
        let session = Session(
            userID: record.userID,
            sessionID: record.sessionID,
            clientID: record.clientID,
            tokenID: record.tokenID,
            tokenKind: .refreshToken
        )
        self.init(reason: reason, session: session)
    }

    /// A refusal no session can be named for (a proof refused before its token was looked up).
    init(_ reason: String) {
        self.init(reason: reason, session: nil)
    }

    /// A refresh that named no token of authlog's (an unknown token, `refresh_unknown_token`; a body that
    /// could not be read, `refresh_malformed_request`, ...): counted by address, as `refresh_<reason>`.
    init(refreshRefusedFor reason: String) {
        self.init(reason: Self.refreshPrefix + reason, session: nil)
    }

    /// What the kinds of refused refreshes that name no token begin with.
    public static let refreshPrefix = "refresh_"
}
