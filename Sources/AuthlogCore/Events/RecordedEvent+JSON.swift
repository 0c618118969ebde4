extension RecordedEvent {
    /// The event as `authlog export` and `GET /v1/events` give it: the members of the ingest format
    /// (`EventEnvelope.ingestFields`, absent when empty) followed by what authlog added when it stored and
    /// sealed it: `position`, `recorded_at`, `digest` and `leaf_hash` (lowercase hex). With the leaf hash a
    /// consumer can ask for the event's inclusion proof (`GET /v1/log/proof/inclusion?position=`) and check
    /// it against a signed checkpoint. Documented in docs/events.md ("Export format").
    public var exportJSON: JSONValue {
        let event = self.envelope
        var members: [(name: String, value: JSONValue)] = [
            ("position", .number(String(self.position))),
            ("event_id", .string(event.eventID.lowercased)),
            ("stream", .string(event.stream.rawValue)),
            ("stream_version", .number(String(self.streamVersion))),
            ("type", .string(event.type.rawValue)),
            ("occurred_at", .string(event.occurredAt.description)),
            ("outcome", .string(event.outcome.rawValue)),
        ]
        let optional: [(String, String?)] = [
            ("reason", event.reason), ("provider", event.provider), ("user_id", event.userID?.lowercased),
            ("session_id", event.sessionID?.lowercased), ("client_id", event.clientID),
            ("ip", event.ip?.description), ("user_agent", event.userAgent), ("request_id", event.requestID),
        ]
        for (name, value) in optional {
            if let value { members.append((name, .string(value))) }
        }
        members += [
            ("data", event.data),
            ("schema_version", .number(String(event.schemaVersion))),
            ("recorded_at", .string(self.recordedAt.description)),
            ("digest", .string(Hex.encode(self.digest))),
            ("leaf_hash", .string(Hex.encode(self.leafHash))),
        ]
        return .object(members)
    }
}
