import Foundation

extension EventEnvelope {
    /// The largest `data` an ingested event may carry: 64 KiB of canonical JSON. authlog's own events stay far
    /// below it (a few hundred bytes); a bigger one would make every later `verify`, export and rebuild pay
    /// for it (one 50 MB event once made every `verify` take 41 s).
    public static let ingestDataLimit = 65_536

    /// The members an ingested event may have, with the envelope's column names.
    public static let ingestFields: Set<String> = [
        "event_id", "stream", "stream_version", "type", "occurred_at", "outcome", "reason", "provider", "user_id",
        "session_id", "client_id", "ip", "user_agent", "request_id", "data", "schema_version",
    ]

    /// Builds and validates an event sent by another system (`authlog append`, `POST /v1/events`).
    ///
    /// `type`, `stream` and `occurred_at` are required; `outcome` too unless the type fixes it; `event_id`
    /// is made (UUIDv7) and `stream_version` assigned when absent; `data` may hold at most
    /// ``ingestDataLimit`` bytes of canonical JSON. Unknown members are refused, and so
    /// are the columns authlog fills itself (`position`, `recorded_at`, `digest`, `leaf_hash`, `hash`, `prev_hash`).
    /// - Throws: ``EventValidationError`` naming the first problem.
    public init(ingesting json: JSONValue) throws(EventValidationError) {
        try Self.refuseUnknownMembers(of: json)
        let reader = IngestReader(json: json)
        guard let type = EventType(rawValue: try reader.requiredString("type")) else {
            throw EventValidationError(field: "type", problem: "is not in the event catalogue")
        }
        guard let stream = StreamName(rawValue: try reader.requiredString("stream")) else {
            throw EventValidationError(field: "stream", problem: "must be category-id with a camelCase category")
        }
        guard let occurredAt = Timestamp(iso8601: try reader.requiredString("occurred_at")) else {
            throw EventValidationError(field: "occurred_at", problem: "must be an ISO 8601 timestamp")
        }
        let outcome = try Self.outcome(reader, type: type)
        let ip = try Self.ip(reader)
        let data = json["data"] ?? .emptyObject
        let dataSize = data.canonicalBytes.count
        guard dataSize <= Self.ingestDataLimit else {
            throw EventValidationError(
                field: "data",
                problem: "is \(dataSize) bytes; at most \(Self.ingestDataLimit) bytes of JSON are accepted"
            )
        }
        self.init(
            eventID: try reader.uuid("event_id") ?? .version7(at: occurredAt),
            stream: stream,
            streamVersion: try reader.integer("stream_version", in: 1...Int(Int32.max)).map { Int32($0) },
            type: type,
            occurredAt: occurredAt,
            outcome: outcome,
            reason: try reader.string("reason"),
            provider: try reader.string("provider"),
            userID: try reader.uuid("user_id"),
            sessionID: try reader.uuid("session_id"),
            clientID: try reader.string("client_id"),
            ip: ip,
            userAgent: try reader.string("user_agent"),
            requestID: try reader.string("request_id"),
            data: data,
            schemaVersion: Int16(try reader.integer("schema_version", in: 1...Int(Int16.max)) ?? 1)
        )
        try self.validate()
    }
    /// Refuses anything but an object of envelope fields; the columns authlog fills itself are named as such.
    private static func refuseUnknownMembers(of json: JSONValue) throws(EventValidationError) {
        guard case .object(let members) = json else {
            throw EventValidationError(field: "event", problem: "must be a JSON object")
        }
        for member in members where !Self.ingestFields.contains(member.name) {
            let reserved = ["position", "recorded_at", "digest", "leaf_hash", "hash", "prev_hash"].contains(member.name)
            // The name is the sender's: shown escaped and cut, and quoted when blank, so the error always names it.
            let shown = EnvelopeText.normalized(member.name, limit: 64) ?? "\"\(member.name)\""
            throw EventValidationError(
                field: shown,
                problem: reserved ? "is set by authlog" : "is not an envelope field"
            )
        }
    }

    /// `outcome`, or the one the type fixes.
    private static func outcome(_ reader: IngestReader, type: EventType) throws(EventValidationError) -> Outcome {
        if let text = try reader.string("outcome") {
            guard let parsed = Outcome(rawValue: text) else {
                throw EventValidationError(field: "outcome", problem: "must be success or failure")
            }
            return parsed
        } else if let fixed = type.fixedOutcome {
            return fixed
        }
        throw EventValidationError(field: "outcome", problem: "is required for \(type.rawValue)")
    }

    /// `ip`, when given: a host address.
    private static func ip(_ reader: IngestReader) throws(EventValidationError) -> IPAddress? {
        guard let text = try reader.string("ip") else { return nil }
        guard let parsed = IPAddress(text) else {
            throw EventValidationError(field: "ip", problem: "must be an IPv4 or IPv6 host address")
        }
        return parsed
    }
}

private struct IngestReader {
    let json: JSONValue

    func string(_ name: String) throws(EventValidationError) -> String? {
        guard let value = self.json[name], !value.isNull else { return nil }
        guard case .string(let text) = value else {
            throw EventValidationError(field: name, problem: "must be a string")
        }
        return text
    }

    func requiredString(_ name: String) throws(EventValidationError) -> String {
        guard let text = try self.string(name) else { throw EventValidationError(field: name, problem: "is required") }
        return text
    }

    func uuid(_ name: String) throws(EventValidationError) -> UUID? {
        guard let text = try self.string(name) else { return nil }
        guard let value = UUID(canonical: text) else {
            throw EventValidationError(field: name, problem: "must be a UUID")
        }
        return value
    }

    func integer(_ name: String, in range: ClosedRange<Int>) throws(EventValidationError) -> Int? {
        guard let value = self.json[name], !value.isNull else { return nil }
        guard case .number(let text) = value, let number = Int(text), range.contains(number) else {
            throw EventValidationError(
                field: name,
                problem: "must be a whole number from \(range.lowerBound) to \(range.upperBound)"
            )
        }
        return number
    }
}
