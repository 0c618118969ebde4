/// The fields of an event's canonical bytes (`authlog.event.v2`, docs/events.md "Canonical bytes"): what a
/// receipt's leaf covers, read back so that a device can check that a receipt describes its own action.
///
/// The bytes are the ASCII tag, then 17 fields in a fixed order, each one presence byte (`0` absent, `1`
/// present) and, when present, a 4-byte big-endian length and the bytes. The server's encoder is
/// `CanonicalEventEncoding` (AuthlogCore).
public struct CanonicalEvent: Sendable, Equatable {
    /// The tag that starts the bytes.
    public static let tag = Array("authlog.event.v2".utf8)

    /// The event's id, as lowercase UUID text.
    public var eventID: String
    /// The stream it belongs to, such as `user-<uuid>`.
    public var stream: String
    /// Its version within the stream.
    public var streamVersion: Int64?
    /// The catalogue type, such as `signin.succeeded`.
    public var type: String
    /// When it happened, in microseconds since the Unix epoch.
    public var occurredAtMicroseconds: Int64
    /// When the log recorded it, in microseconds since the Unix epoch.
    public var recordedAtMicroseconds: Int64
    /// Whether the action succeeded (`success`, `failure`, …).
    public var outcome: String
    /// The machine-readable reason of a failure or revocation.
    public var reason: String?
    /// The identity provider involved.
    public var provider: String?
    /// The user, as lowercase UUID text.
    public var userID: String?
    /// The session, as lowercase UUID text.
    public var sessionID: String?
    /// The app that asked.
    public var clientID: String?
    /// The client's address as stored: 4 or 16 bytes (for personal data the store encrypts, what was hashed).
    public var ip: [UInt8]?
    /// The client's user agent as stored.
    public var userAgent: String?
    /// The request id that correlates with the server's logs.
    public var requestID: String?
    /// The type-specific details as canonical JSON text.
    public var data: String
    /// The version of `data`'s shape.
    public var schemaVersion: Int64

    /// Why bytes are not an event's canonical bytes.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// The bytes are not of the layout; the text says where.
        case malformed(String)

        /// The reason as a sentence.
        public var description: String {
            switch self {
            case .malformed(let why): "not an event's canonical bytes: \(why)"
            }
        }
    }

    /// Parses the bytes; every length bounded by the remaining input, every field present in order, no trailing
    /// bytes.
    /// - Throws: ``Failure`` `.malformed` naming the first field that is wrong.
    public init(bytes: [UInt8]) throws(CanonicalEvent.Failure) {
        guard bytes.starts(with: Self.tag) else { throw .malformed("the bytes do not start with authlog.event.v2") }
        var reader = CanonicalFieldReader(bytes[Self.tag.count...])
        self.eventID = try reader.uuid("event_id")
        self.stream = try reader.text("stream")
        self.streamVersion = try reader.optionalDecimal("stream_version")
        self.type = try reader.text("type")
        self.occurredAtMicroseconds = try reader.decimal("occurred_at")
        self.recordedAtMicroseconds = try reader.decimal("recorded_at")
        self.outcome = try reader.text("outcome")
        self.reason = try reader.optionalText("reason")
        self.provider = try reader.optionalText("provider")
        self.userID = try reader.optionalUUID("user_id")
        self.sessionID = try reader.optionalUUID("session_id")
        self.clientID = try reader.optionalText("client_id")
        self.ip = try reader.optionalField("ip")
        guard self.ip.map({ $0.count == 4 || $0.count == 16 }) ?? true else {
            throw .malformed("the ip is not 4 or 16 bytes")
        }
        self.userAgent = try reader.optionalText("user_agent")
        self.requestID = try reader.optionalText("request_id")
        self.data = try reader.text("data")
        self.schemaVersion = try reader.decimal("schema_version")
        guard reader.isAtEnd else { throw .malformed("bytes follow the last field") }
    }
}
