/// One sealed event as an OCSF 1.8.0 event (docs/events.md, "OCSF"): the one builder behind the push sinks'
/// `ocsf` format, `GET /v1/events?format=ocsf` and `authlog export --format ocsf`, so that all three give the
/// same bytes for the same event and evidence.
///
/// The line is canonical JSON (members sorted, no white space). It carries the class and activity of
/// ``EventType/ocsf``, the base attributes (severity, status, times), `metadata` (the event id, its type as
/// `event_code`, the request id as `correlation_uid`, the position as `sequence`), the attributes of the class
/// that the event has facts for (``OCSFEvent/classMembers(of:type:)``), the counts of an aggregated refusal,
/// the whole export-format event under `unmapped`, and with evidence the record integrity profile's attestation
/// (``OCSFEvent/attestation(of:evidence:)``) and the proof, under `unmapped` too: the line validates strictly
/// against OCSF 1.8.0, which has no such profile yet. Personal data stays as the export has it: sealed profiles stay
/// ciphertext, identities are subject hashes; no email or name is written in clear.
public enum OCSFEvent {
    /// The product name, vendor and log name the lines give.
    public static let productName = "authlog"

    /// The OCSF event of one export-format line, as one line of canonical JSON (no newline).
    ///
    /// A line that is not an event of the catalogue is not dropped: it goes out under `unmapped.line` alone
    /// with `class_uid` 0.
    /// - Parameters:
    ///   - exportLine: The event in the export format (docs/events.md).
    ///   - evidence: The log's evidence for the event, or nil for a line without the integrity profile.
    /// - Returns: The OCSF event's canonical JSON text.
    public static func line(exportLine: String, evidence: OCSFRecordEvidence?) -> String {
        guard let event = try? JSONParser().parse(Array(exportLine.utf8)), let object = self.object(event, evidence)
        else {
            return JSONValue.object([
                ("class_uid", .number("0")), ("unmapped", .object([("line", .string(exportLine))])),
            ])
            .canonicalText
        }
        return object.canonicalText
    }

    /// The OCSF event of an export-format event already parsed, as ``line(exportLine:evidence:)`` gives it.
    /// - Parameters:
    ///   - event: The event in the export format.
    ///   - evidence: The log's evidence for the event, or nil for a line without the integrity profile.
    /// - Returns: The OCSF event's canonical JSON text.
    public static func line(_ event: JSONValue, evidence: OCSFRecordEvidence?) -> String {
        guard let object = self.object(event, evidence) else {
            return JSONValue.object([("class_uid", .number("0")), ("unmapped", .object([("line", event)]))])
                .canonicalText
        }
        return object.canonicalText
    }

    /// The OCSF event of an export-format event, or nil when its type or outcome is not authlog's.
    static func object(_ event: JSONValue, _ evidence: OCSFRecordEvidence?) -> JSONValue? {
        guard let type = event["type"]?.stringValue.flatMap(EventType.init(rawValue:)),
            let outcome = event["outcome"]?.stringValue.flatMap(Outcome.init(rawValue:)),
            let occurredAt = event["occurred_at"]?.stringValue,
            let occurred = Timestamp(iso8601: occurredAt)
        else { return nil }
        let mapping = type.ocsf
        let reason = event["reason"]?.stringValue
        let severity = type.ocsfSeverity(outcome: outcome, reason: reason)
        var members: [(name: String, value: JSONValue)] = [
            ("activity_id", .integer(mapping.activityID)),
            ("activity_name", .string(type.ocsfActivityName)),
            ("category_uid", .integer(mapping.categoryUID)),
            ("category_name", .string(mapping.categoryName)),
            ("class_uid", .integer(mapping.classUID)),
            ("class_name", .string(mapping.className)),
            ("type_uid", .integer(mapping.typeUID)),
            ("type_name", .string("\(mapping.className): \(mapping.activityCaption)")),
            ("severity_id", .integer(severity.rawValue)),
            ("severity", .string(severity.caption)),
            ("status_id", .integer(outcome.ocsfStatusID)),
            ("status", .string(outcome.ocsfStatus)),
            ("message", .string(type.rawValue + " " + outcome.rawValue + (reason.map { ": " + $0 } ?? ""))),
            ("time", .milliseconds(occurred)),
            ("time_dt", .string(occurredAt)),
            // authlog records every time in UTC.
            ("timezone_offset", .integer(0)),
            ("metadata", self.metadata(of: event, type: type)),
        ]
        if let reason {
            members.append(("status_code", .string(reason)))
            members.append(("status_detail", .string(reason)))
        }
        members += self.aggregate(of: event, type: type)
        members += self.classMembers(of: event, type: type)
        var unmapped = event.objectMembers ?? []
        if let evidence {
            // The profile is not in 1.8.0: a strict validator refuses `attestation_list` on the class, so it goes
            // under `unmapped` in the profile's own shape (docs/events.md, "The record integrity profile").
            unmapped.append(("attestation_list", .array([self.attestation(of: event, evidence: evidence)])))
            unmapped.append(("proof", self.proof(of: event, evidence: evidence)))
        }
        members.append(("unmapped", .object(unmapped)))
        return .object(members)
    }

    /// `metadata`: the schema version, the product, the event's id, type, request id, position and times, the
    /// profile the line uses (`datetime`) and its OWASP name as a label.
    private static func metadata(of event: JSONValue, type: EventType) -> JSONValue {
        var members: [(name: String, value: JSONValue)] = [
            ("version", .string(OCSFMapping.schemaVersion)),
            (
                "product",
                .object([
                    ("name", .string(Self.productName)), ("vendor_name", .string(Self.productName)),
                    ("version", .string(AuthlogVersion.current)),
                ])
            ),
            ("uid", event["event_id"] ?? .null),
            ("event_code", .string(type.rawValue)),
            ("log_name", .string(Self.productName)),
            ("sequence", event["position"] ?? .null),
            ("original_time", event["occurred_at"] ?? .null),
            ("profiles", .array([.string("datetime")])),
        ]
        if let requestID = event["request_id"]?.stringValue { members.append(("correlation_uid", .string(requestID))) }
        if let recordedAt = event["recorded_at"]?.stringValue, let recorded = Timestamp(iso8601: recordedAt) {
            members.append(("logged_time", .milliseconds(recorded)))
            members.append(("logged_time_dt", .string(recordedAt)))
        }
        if let owasp = event["owasp"]?.stringValue { members.append(("labels", .array([.string("owasp:" + owasp)]))) }
        return .object(members)
    }

    /// `count`, `start_time` and `end_time` of an event that stands for many occurrences (an aggregated refusal,
    /// an outage's refused requests, a sink's failures in a row), from the members ``EventType/ocsfAggregate``
    /// names: an integer, or the sum of an object of integers.
    private static func aggregate(of event: JSONValue, type: EventType) -> [(name: String, value: JSONValue)] {
        guard let fields = type.ocsfAggregate, let data = event["data"] else { return [] }
        var members: [(name: String, value: JSONValue)] = []
        if let count = data[fields.count]?.integerValue {
            members.append(("count", .number(String(count))))
        } else if let counts = data[fields.count]?.objectMembers {
            members.append(("count", .number(String(counts.reduce(Int64(0)) { $0 + ($1.value.integerValue ?? 0) }))))
        }
        for (source, target) in [(fields.start, "start_time"), (fields.end, "end_time")] {
            guard let source, let text = data[source]?.stringValue, let time = Timestamp(iso8601: text) else {
                continue
            }
            members.append((target, .milliseconds(time)))
            members.append((target + "_dt", .string(text)))
        }
        return members
    }
}

extension JSONValue {
    /// A JSON integer.
    static func integer(_ value: Int) -> JSONValue { .number(String(value)) }

    /// An OCSF `timestamp_t`: milliseconds since the Unix epoch.
    static func milliseconds(_ time: Timestamp) -> JSONValue {
        let micros = time.microsecondsSinceEpoch
        return .number(String(micros >= 0 ? micros / 1000 : -((-micros + 999) / 1000)))
    }
}
