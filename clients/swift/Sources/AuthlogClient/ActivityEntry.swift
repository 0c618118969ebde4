public import Foundation

/// One event of the user's account activity, as `GET /v1/me/activity` lists it (newest first).
public struct ActivityEntry: Sendable, Hashable, Identifiable, Decodable {
    /// The event id.
    public let id: String
    /// The event type, such as `signin.succeeded`.
    public let type: String
    /// When it happened.
    public let time: Date
    /// The provider involved, if any.
    public let provider: String?
    /// The address of the request, if known.
    public let ip: String?
    /// The user agent of the request, if known.
    public let userAgent: String?
    /// `success` or `failure`.
    public let outcome: String?
    /// Where the event's receipt is served (`/v1/log/receipt/{event_id}`), if given.
    public let receiptURL: String?
    /// The event's position in the log, or `nil` when it is not sealed yet (or the server does not say).
    public let position: Int64?

    enum CodingKeys: String, CodingKey {
        case id = "event_id"
        case type
        case time
        case provider
        case ip
        case userAgent = "user_agent"
        case outcome
        case receiptURL = "receipt_url"
        case position
    }

    /// Reads an entry with authlog's RFC 3339 time.
    /// - Throws: `DecodingError` for a member missing or of the wrong type.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.id = try container.decode(String.self, forKey: .id)
        self.type = try container.decode(String.self, forKey: .type)
        self.time = try WireTime.decode(container, .time)
        self.provider = try container.decodeIfPresent(String.self, forKey: .provider)
        self.ip = try container.decodeIfPresent(String.self, forKey: .ip)
        self.userAgent = try container.decodeIfPresent(String.self, forKey: .userAgent)
        self.outcome = try container.decodeIfPresent(String.self, forKey: .outcome)
        self.receiptURL = try container.decodeIfPresent(String.self, forKey: .receiptURL)
        self.position = try container.decodeIfPresent(Int64.self, forKey: .position)
    }
}
