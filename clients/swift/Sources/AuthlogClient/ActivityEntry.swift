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
    /// Why it failed or ended, such as `dpop_wrong_key` or `not_me`, when the event has a reason.
    public let reason: String?
    /// For a `signin.flagged` entry, what was unusual about which sign-in and what authlog did; `nil` for other
    /// entries (and for an `alert` this client cannot read, which does not fail the page).
    public let alert: ActivityAlert?

    /// The entry as an alert to show with "this was not me" (its id is what
    /// ``AuthlogClient/reportNotMe(eventID:)`` takes); `nil` for entries that are not alerts.
    public var signinAlert: SigninAlert? {
        self.alert.map { SigninAlert(eventID: self.id, judgements: $0.judgements) }
    }

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
        case reason
        case alert
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
        self.reason = try? container.decodeIfPresent(String.self, forKey: .reason)
        self.alert = (try? container.decodeIfPresent(ActivityAlertMember.self, forKey: .alert))?.alert
    }
}
