public import Foundation

/// The session's tokens as authlog issued them, kept by a ``TokenStore``.
///
/// ``description`` and ``debugDescription`` never show the tokens.
public struct AuthTokens: Codable, Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// authlog's user id.
    public var userID: String
    /// The session id.
    public var sessionID: String
    /// The access token (an ES256 JWT, 15 minutes by default), sent as `Authorization: Bearer`.
    public var accessToken: String
    /// When the access token expires.
    public var accessTokenExpiresAt: Date
    /// The refresh token; each refresh spends it and returns the next.
    public var refreshToken: String
    /// When the session's refresh token family expires at the latest.
    public var refreshTokenExpiresAt: Date
    /// The provider the session was signed in with, when the client knows it (`nil` for tokens stored by
    /// other code).
    public var provider: String?

    /// Creates the tokens.
    public init(
        userID: String,
        sessionID: String,
        accessToken: String,
        accessTokenExpiresAt: Date,
        refreshToken: String,
        refreshTokenExpiresAt: Date,
        provider: String? = nil
    ) {
        self.userID = userID
        self.sessionID = sessionID
        self.accessToken = accessToken
        self.accessTokenExpiresAt = accessTokenExpiresAt
        self.refreshToken = refreshToken
        self.refreshTokenExpiresAt = refreshTokenExpiresAt
        self.provider = provider
    }

    /// The user and the session, without the tokens.
    public var identity: SessionIdentity { SessionIdentity(userID: self.userID, sessionID: self.sessionID) }

    /// The user, the session and the expiry times; the tokens are redacted.
    public var description: String {
        "AuthTokens(user: \(self.userID), session: \(self.sessionID), access token: <redacted> until "
            + "\(self.accessTokenExpiresAt), refresh token: <redacted>)"
    }

    /// The same as ``description``.
    public var debugDescription: String { self.description }
}
