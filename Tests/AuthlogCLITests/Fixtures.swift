import AuthlogCore
import AuthlogTesting
import Foundation

/// JSON lines for `authlog append`, as another system would send them.
func jsonLines(_ events: [EventEnvelope]) -> String {
    events.map { event in
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
    .joined(separator: "\n") + "\n"
}
