public import Foundation

/// One event as it is proposed for appending: the typed envelope columns of events.md plus `data`.
///
/// `recorded_at` and the digest are added by the writer, the position and leaf hash by the sealer (see
/// ``RecordedEvent``).
/// The free-text columns (`reason`, `provider`, `client_id`, `user_agent`, `request_id`) always hold
/// their ``EnvelopeText`` normal form, however they are set: blank is `nil`, control characters are
/// escaped and long values are cut, so a request value can never make the event unstorable.
public struct EventEnvelope: Sendable, Equatable {
    /// The idempotency key; time-ordered (UUIDv7) when authlog makes it.
    public var eventID: UUID
    /// The stream the event belongs to.
    public var stream: StreamName
    /// The version within the stream; `nil` lets the writer assign the next one.
    public var streamVersion: Int32?
    /// The catalogue type.
    public var type: EventType
    /// When it happened.
    public var occurredAt: Timestamp
    /// Whether the action succeeded.
    public var outcome: Outcome
    /// The machine-readable reason for failures and revocations.
    public var reason: String? {
        didSet { self.reason = EnvelopeText.normalized(self.reason, limit: EnvelopeText.Limit.code) }
    }
    /// The identity provider involved.
    public var provider: String? {
        didSet { self.provider = EnvelopeText.normalized(self.provider, limit: EnvelopeText.Limit.code) }
    }
    /// authlog's user.
    public var userID: UUID?
    /// authlog's session.
    public var sessionID: UUID?
    /// The app that asked (bundle id, web client).
    public var clientID: String? {
        didSet { self.clientID = EnvelopeText.normalized(self.clientID, limit: EnvelopeText.Limit.clientID) }
    }
    /// The client address.
    public var ip: IPAddress?
    /// The client's user agent, cut to ``EnvelopeText/Limit/userAgent`` bytes.
    public var userAgent: String? {
        didSet { self.userAgent = EnvelopeText.normalized(self.userAgent, limit: EnvelopeText.Limit.userAgent) }
    }
    /// Correlates with server logs.
    public var requestID: String? {
        didSet { self.requestID = EnvelopeText.normalized(self.requestID, limit: EnvelopeText.Limit.requestID) }
    }
    /// The type-specific details, always a JSON object.
    public var data: JSONValue
    /// The version of `data`'s shape.
    public var schemaVersion: Int16

    /// Creates an envelope with raw `data`; call ``validated()`` before appending one built from input.
    ///
    /// The free-text columns are brought to their ``EnvelopeText`` normal form unless `normalizing` is
    /// `false`, which only the store's reader passes: a stored row is read back exactly as it was hashed.
    public init(
        eventID: UUID = .version7(),
        stream: StreamName,
        streamVersion: Int32? = nil,
        type: EventType,
        occurredAt: Timestamp = .now(),
        outcome: Outcome = .success,
        reason: String? = nil,
        provider: String? = nil,
        userID: UUID? = nil,
        sessionID: UUID? = nil,
        clientID: String? = nil,
        ip: IPAddress? = nil,
        userAgent: String? = nil,
        requestID: String? = nil,
        data: JSONValue = .emptyObject,
        schemaVersion: Int16 = 1,
        normalizing: Bool = true
    ) {
        func text(_ value: String?, _ limit: Int) -> String? {
            normalizing ? EnvelopeText.normalized(value, limit: limit) : value
        }
        self.eventID = eventID
        self.stream = stream
        self.streamVersion = streamVersion
        self.type = type
        self.occurredAt = occurredAt
        self.outcome = outcome
        self.reason = text(reason, EnvelopeText.Limit.code)
        self.provider = text(provider, EnvelopeText.Limit.code)
        self.userID = userID
        self.sessionID = sessionID
        self.clientID = text(clientID, EnvelopeText.Limit.clientID)
        self.ip = ip
        self.userAgent = text(userAgent, EnvelopeText.Limit.userAgent)
        self.requestID = text(requestID, EnvelopeText.Limit.requestID)
        self.data = data
        self.schemaVersion = schemaVersion
    }

    /// Creates an envelope whose type, data and schema version come from a typed payload.
    /// - Throws: `EncodingError` if the payload cannot be encoded.
    public init<Payload: EventPayload>(
        _ payload: Payload,
        eventID: UUID = .version7(),
        stream: StreamName,
        streamVersion: Int32? = nil,
        occurredAt: Timestamp = .now(),
        outcome: Outcome? = nil,
        reason: String? = nil,
        provider: String? = nil,
        userID: UUID? = nil,
        sessionID: UUID? = nil,
        clientID: String? = nil,
        ip: IPAddress? = nil,
        userAgent: String? = nil,
        requestID: String? = nil
    ) throws {
        self.init(
            eventID: eventID,
            stream: stream,
            streamVersion: streamVersion,
            type: Payload.eventType,
            occurredAt: occurredAt,
            outcome: outcome ?? Payload.eventType.fixedOutcome ?? .success,
            reason: reason,
            provider: provider,
            userID: userID,
            sessionID: sessionID,
            clientID: clientID,
            ip: ip,
            userAgent: userAgent,
            requestID: requestID,
            data: try JSONValue(encoding: payload),
            schemaVersion: Payload.schemaVersion
        )
    }

    /// Decodes `data` as the payload of this event's type.
    /// - Throws: `DecodingError` when `data` does not have the payload's shape, or
    ///   ``EventValidationError`` when `Payload` is not this event's payload type.
    public func payload<Payload: EventPayload>(as type: Payload.Type) throws -> Payload {
        guard Payload.eventType == self.type else {
            throw EventValidationError(
                field: "type",
                problem: "is \(self.type.rawValue), not \(Payload.eventType.rawValue)"
            )
        }
        return try self.data.decode(Payload.self)
    }
}
