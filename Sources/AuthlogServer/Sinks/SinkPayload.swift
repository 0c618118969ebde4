public import AuthlogCore
import AuthlogCrypto
import Foundation

/// What one POST to a sink carries: a batch of sealed events as JSON lines, in the export format or as OCSF
/// events, and the `Signature` header that proves it came from this server.
///
/// `Signature: t=<unix seconds>,v1=<hex HMAC-SHA-256(secret, "<t>." ‖ body)>`: the receiver recomputes the
/// HMAC over the timestamp, a dot and the raw body with the sink's secret, compares in constant time, and
/// refuses a timestamp too far from its clock (a replayed batch). docs/operations.md has a verification snippet.
public enum SinkPayload {
    /// The body of a batch: one line per export-format line of `lines`, in `format`, each ending in a newline.
    public static func body(_ lines: [String], format: SinkSettings.Format) -> [UInt8] {
        var body: [UInt8] = []
        for line in lines {
            switch format {
            case .export: body += Array(line.utf8)
            case .ocsf: body += Array(Self.ocsf(exportLine: line).utf8)
            }
            body.append(0x0A)
        }
        return body
    }

    /// The `Signature` header's value for `body` sent at `timestamp` (unix seconds).
    public static func signature(of body: [UInt8], secret: [UInt8], timestamp: Int64) -> String {
        let message = Array("\(timestamp).".utf8) + body
        let mac = (try? HMACSHA256.authenticationCode(for: message, key: secret)) ?? []
        return "t=\(timestamp),v1=\(Hex.encode(mac))"
    }

    /// One event of the export format as an OCSF 1.8.0 event (docs/events.md, "OCSF"): the class, activity,
    /// type and status its type and outcome map to, `time` in milliseconds, `metadata` (product, schema
    /// version, the event's id and position as `uid` and `sequence`), the actor, source and user agent when the
    /// event names them, and the whole export-format event under `unmapped`. A line that is not an event of
    /// the catalogue goes out under `unmapped` alone with `class_uid` 0 (never dropped).
    public static func ocsf(exportLine line: String) -> String {
        guard let event = try? JSONParser().parse(Array(line.utf8)),
            let type = event["type"]?.stringValue.flatMap(EventType.init(rawValue:)),
            let outcome = event["outcome"]?.stringValue.flatMap(Outcome.init(rawValue:))
        else {
            let unmapped = (try? JSONParser().parse(Array(line.utf8))) ?? .string(line)
            return JSONValue.object([("class_uid", .number("0")), ("unmapped", unmapped)]).canonicalText
        }
        let mapping = type.ocsf
        let time = event["occurred_at"]?.stringValue.flatMap(Timestamp.init(iso8601:))
        var members: [(name: String, value: JSONValue)] = [
            ("activity_id", .number(String(mapping.activityID))),
            ("activity_name", .string(type.ocsfActivityName)),
            ("category_uid", .number(String(mapping.categoryUID))),
            ("class_name", .string(mapping.className)),
            ("class_uid", .number(String(mapping.classUID))),
            ("type_uid", .number(String(mapping.typeUID))),
            ("type_name", .string("\(mapping.className): \(type.ocsfActivityName)")),
            ("severity_id", .number("1")),
            ("status_id", .number(String(outcome.ocsfStatusID))),
            ("status", .string(outcome.ocsfStatus)),
            ("time", .number(String((time?.microsecondsSinceEpoch ?? 0) / 1000))),
            (
                "metadata",
                .object([
                    ("product", .object([("name", .string("authlog")), ("vendor_name", .string("authlog"))])),
                    ("version", .string(OCSFMapping.schemaVersion)),
                    ("uid", event["event_id"] ?? .null),
                    ("sequence", event["position"] ?? .null),
                    ("log_name", .string("authlog")),
                ])
            ),
        ]
        if let reason = event["reason"]?.stringValue { members.append(("status_detail", .string(reason))) }
        if let user = event["user_id"]?.stringValue {
            members.append(("actor", .object([("user", .object([("uid", .string(user))]))])))
            members.append(("user", .object([("uid", .string(user))])))
        }
        if let ip = event["ip"]?.stringValue { members.append(("src_endpoint", .object([("ip", .string(ip))]))) }
        if let agent = event["user_agent"]?.stringValue {
            members.append(("http_request", .object([("user_agent", .string(agent))])))
        }
        members.append(("unmapped", event))
        return JSONValue.object(members).canonicalText
    }
}
