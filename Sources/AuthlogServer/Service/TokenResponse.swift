public import Foundation
public import AuthlogCore

/// The answer to a sign-in or a refresh (api.md).
public struct TokenResponse: Sendable {
    public var userID: UUID
    public var sessionID: UUID
    public var isNewUser: Bool
    public var accessToken: String
    public var accessTokenExpiresAt: Timestamp
    public var refreshToken: String
    public var refreshTokenExpiresAt: Timestamp

    /// The JSON body, with lowercase UUIDs and RFC 3339 UTC times.
    var json: JSONValue {
        .object([
            ("user_id", .string(self.userID.lowercased)), ("session_id", .string(self.sessionID.lowercased)),
            ("is_new_user", .bool(self.isNewUser)), ("access_token", .string(self.accessToken)),
            ("access_token_expires_at", .string(self.accessTokenExpiresAt.description)),
            ("refresh_token", .string(self.refreshToken)),
            ("refresh_token_expires_at", .string(self.refreshTokenExpiresAt.description)),
            ("token_type", .string("Bearer")),
        ])
    }
}
