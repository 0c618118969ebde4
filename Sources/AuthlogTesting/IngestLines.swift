public import AuthlogCore
import Foundation

/// Events as `authlog append` reads them: one JSON object a line with the envelope's field names, as another
/// system would send them (no stream_version; the optional fields only when set).
public enum IngestLines {
    /// `events` as JSON lines, each ended by a newline.
    public static func text(_ events: [EventEnvelope]) -> String {
        events.map(Self.line).joined(separator: "\n") + "\n"
    }

    /// One event as one JSON line, without its newline.
    public static func line(_ event: EventEnvelope) -> String {
        var members: [(name: String, value: JSONValue)] = [
            ("event_id", .string(event.eventID.lowercased)), ("stream", .string(event.stream.rawValue)),
            ("type", .string(event.type.rawValue)), ("occurred_at", .string(event.occurredAt.description)),
            ("outcome", .string(event.outcome.rawValue)), ("data", event.data),
        ]
        let optional: [(String, String?)] = [
            ("reason", event.reason), ("provider", event.provider), ("user_id", event.userID?.lowercased),
            ("session_id", event.sessionID?.lowercased), ("client_id", event.clientID), ("ip", event.ip?.description),
            ("user_agent", event.userAgent), ("request_id", event.requestID),
        ]
        for (name, value) in optional {
            if let value { members.append((name, .string(value))) }
        }
        return JSONValue.object(members).canonicalText
    }
}
