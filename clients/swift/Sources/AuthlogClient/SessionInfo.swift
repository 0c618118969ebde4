public import Foundation

/// One of the user's active sessions, as `GET /v1/me/sessions` lists it (for a "devices" screen).
public struct SessionInfo: Sendable, Hashable, Identifiable, Decodable {
    /// The session id.
    public let id: String
    /// The provider it was signed in with.
    public let provider: String
    /// The user agent of its sign-in, if known.
    public let userAgent: String?
    /// The address of its sign-in, if known.
    public let ip: String?
    /// When it was signed in.
    public let startedAt: Date
    /// When it was last refreshed, if ever.
    public let lastRefreshedAt: Date?
    /// Whether it is the session of this client's access token.
    public let isCurrent: Bool

    enum CodingKeys: String, CodingKey {
        case id = "session_id"
        case provider
        case userAgent = "user_agent"
        case ip
        case startedAt = "started_at"
        case lastRefreshedAt = "last_refreshed_at"
        case isCurrent = "current"
    }

    /// Reads a session with authlog's RFC 3339 times.
    /// - Throws: `DecodingError` for a member missing or of the wrong type.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.id = try container.decode(String.self, forKey: .id)
        self.provider = try container.decode(String.self, forKey: .provider)
        self.userAgent = try container.decodeIfPresent(String.self, forKey: .userAgent)
        self.ip = try container.decodeIfPresent(String.self, forKey: .ip)
        self.startedAt = try WireTime.decode(container, .startedAt)
        self.lastRefreshedAt = try WireTime.decodeIfPresent(container, .lastRefreshedAt)
        self.isCurrent = try container.decode(Bool.self, forKey: .isCurrent)
    }
}
