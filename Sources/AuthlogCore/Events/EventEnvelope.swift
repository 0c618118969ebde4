public import Foundation

/// One event as it is proposed for appending: the typed envelope columns of events.md plus `data`.
///
/// Position, `recorded_at` and the chain hashes are added by the sequencer (see ``RecordedEvent``).
public struct EventEnvelope: Sendable, Equatable {
    /// The longest `user_agent` kept, in UTF-8 bytes; longer values are cut at a character boundary.
    public static let userAgentLimit = 512

    /// The idempotency key; time-ordered (UUIDv7) when authlog makes it.
    public var eventID: UUID
    /// The stream the event belongs to.
    public var stream: StreamName
    /// The version within the stream; `nil` lets the sequencer assign the next one.
    public var streamVersion: Int32?
    /// The catalogue type.
    public var type: EventType
    /// When it happened.
    public var occurredAt: Timestamp
    /// Whether the action succeeded.
    public var outcome: Outcome
    /// The machine-readable reason for failures and revocations.
    public var reason: String?
    /// The identity provider involved.
    public var provider: String?
    /// authlog's user.
    public var userID: UUID?
    /// authlog's session.
    public var sessionID: UUID?
    /// The app that asked (bundle id, web client).
    public var clientID: String?
    /// The client address.
    public var ip: IPAddress?
    /// The client's user agent, cut to ``userAgentLimit`` bytes.
    public var userAgent: String? {
        didSet { self.userAgent = self.userAgent.map(Self.truncatedUserAgent) }
    }
    /// Correlates with server logs.
    public var requestID: String?
    /// The type-specific details, always a JSON object.
    public var data: JSONValue
    /// The version of `data`'s shape.
    public var schemaVersion: Int16

    /// Creates an envelope with raw `data`; call ``validated()`` before appending one built from input.
    public init(
        eventID: UUID = .version7(), stream: StreamName, streamVersion: Int32? = nil, type: EventType,
        occurredAt: Timestamp = .now(), outcome: Outcome = .success, reason: String? = nil, provider: String? = nil,
        userID: UUID? = nil, sessionID: UUID? = nil, clientID: String? = nil, ip: IPAddress? = nil,
        userAgent: String? = nil, requestID: String? = nil, data: JSONValue = .emptyObject, schemaVersion: Int16 = 1
    ) {
        self.eventID = eventID
        self.stream = stream
        self.streamVersion = streamVersion
        self.type = type
        self.occurredAt = occurredAt
        self.outcome = outcome
        self.reason = reason
        self.provider = provider
        self.userID = userID
        self.sessionID = sessionID
        self.clientID = clientID
        self.ip = ip
        self.userAgent = userAgent.map(Self.truncatedUserAgent)
        self.requestID = requestID
        self.data = data
        self.schemaVersion = schemaVersion
    }

    /// Creates an envelope whose type, data and schema version come from a typed payload.
    /// - Throws: `EncodingError` if the payload cannot be encoded.
    public init<Payload: EventPayload>(
        _ payload: Payload, eventID: UUID = .version7(), stream: StreamName, streamVersion: Int32? = nil,
        occurredAt: Timestamp = .now(), outcome: Outcome? = nil, reason: String? = nil, provider: String? = nil,
        userID: UUID? = nil, sessionID: UUID? = nil, clientID: String? = nil, ip: IPAddress? = nil,
        userAgent: String? = nil, requestID: String? = nil
    ) throws {
        self.init(
            eventID: eventID, stream: stream, streamVersion: streamVersion, type: Payload.eventType,
            occurredAt: occurredAt, outcome: outcome ?? Payload.eventType.fixedOutcome ?? .success, reason: reason,
            provider: provider, userID: userID, sessionID: sessionID, clientID: clientID, ip: ip,
            userAgent: userAgent, requestID: requestID, data: try JSONValue(encoding: payload),
            schemaVersion: Payload.schemaVersion)
    }

    /// Decodes `data` as the payload of this event's type.
    /// - Throws: `DecodingError` when `data` does not have the payload's shape, or
    ///   ``EventValidationError`` when `Payload` is not this event's payload type.
    public func payload<Payload: EventPayload>(as type: Payload.Type) throws -> Payload {
        guard Payload.eventType == self.type else {
            throw EventValidationError(field: "type", problem: "is \(self.type.rawValue), not \(Payload.eventType.rawValue)")
        }
        return try self.data.decode(Payload.self)
    }

    static func truncatedUserAgent(_ value: String) -> String {
        guard value.utf8.count > Self.userAgentLimit else { return value }
        var result = ""
        var used = 0
        for character in value {
            let size = character.utf8.count
            if used + size > Self.userAgentLimit { break }
            result.append(character)
            used += size
        }
        return result
    }
}
