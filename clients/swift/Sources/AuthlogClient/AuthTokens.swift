public import Foundation

/// The session's tokens as authlog issued them, kept by a ``TokenStore``.
///
/// ``description`` and ``debugDescription`` never show the tokens.
public struct AuthTokens: Codable, Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// authlog's user id.
    public var userID: String
    /// The session id.
    public var sessionID: String
    /// The access token (an ES256 JWT, 15 minutes by default), sent as `Authorization: Bearer`, or as
    /// `Authorization: DPoP` with a proof when ``tokenType`` is ``TokenType/dpop``.
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
    /// How the tokens are used: ``TokenType/dpop`` when authlog bound them to the install's DPoP key (each request
    /// then proves the key), ``TokenType/bearer`` otherwise. Tokens stored before the client knew DPoP are Bearer.
    public var tokenType: TokenType

    /// Creates the tokens.
    public init(
        userID: String,
        sessionID: String,
        accessToken: String,
        accessTokenExpiresAt: Date,
        refreshToken: String,
        refreshTokenExpiresAt: Date,
        provider: String? = nil,
        tokenType: TokenType = .bearer
    ) {
        self.userID = userID
        self.sessionID = sessionID
        self.accessToken = accessToken
        self.accessTokenExpiresAt = accessTokenExpiresAt
        self.refreshToken = refreshToken
        self.refreshTokenExpiresAt = refreshTokenExpiresAt
        self.provider = provider
        self.tokenType = tokenType
    }

    /// Reads tokens as a store wrote them; a snapshot written before ``tokenType`` existed is Bearer.
    /// - Throws: `DecodingError` for data that is not such a snapshot.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.userID = try container.decode(String.self, forKey: .userID)
        self.sessionID = try container.decode(String.self, forKey: .sessionID)
        self.accessToken = try container.decode(String.self, forKey: .accessToken)
        self.accessTokenExpiresAt = try container.decode(Date.self, forKey: .accessTokenExpiresAt)
        self.refreshToken = try container.decode(String.self, forKey: .refreshToken)
        self.refreshTokenExpiresAt = try container.decode(Date.self, forKey: .refreshTokenExpiresAt)
        self.provider = try container.decodeIfPresent(String.self, forKey: .provider)
        self.tokenType = try container.decodeIfPresent(TokenType.self, forKey: .tokenType) ?? .bearer
    }

    private enum CodingKeys: String, CodingKey {
        case userID, sessionID, accessToken, accessTokenExpiresAt, refreshToken, refreshTokenExpiresAt, provider
        case tokenType
    }

    /// Whether the tokens are bound to the install's DPoP key (``tokenType`` is ``TokenType/dpop``).
    public var isDPoPBound: Bool { self.tokenType == .dpop }

    /// The user and the session, without the tokens.
    public var identity: SessionIdentity { SessionIdentity(userID: self.userID, sessionID: self.sessionID) }

    /// The user, the session and the expiry times; the tokens are redacted.
    public var description: String {
        "AuthTokens(user: \(self.userID), session: \(self.sessionID), \(self.tokenType) access token: <redacted> "
            + "until \(self.accessTokenExpiresAt), refresh token: <redacted>)"
    }

    /// The same as ``description``.
    public var debugDescription: String { self.description }
}
