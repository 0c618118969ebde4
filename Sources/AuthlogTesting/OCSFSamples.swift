public import AuthlogCore
import Foundation

/// Export-format events of every type and the log's evidence, for the tests that validate OCSF lines: built from
/// the catalogue itself (``EventType/allCases``, each type's required columns and fixed outcome), so a type added
/// to it is validated without a line of test written for it.
public enum OCSFSamples {
    /// An export-format event of `type` with `outcome`: only the columns the type requires, or every column.
    public static func exportEvent(_ type: EventType, _ outcome: Outcome, full: Bool, position: Int64 = 42) -> JSONValue
    {
        let required = type.requiredFields
        func wanted(_ field: EnvelopeField) -> Bool { full || required.contains(field) }
        var members: [(name: String, value: JSONValue)] = [
            ("position", .number(String(position))),
            ("event_id", .string("0199a0a0-0000-7000-8000-0000000000\(position)")),
            ("stream", .string("\(type.streamCategories.sorted()[0])-1")),
            ("stream_version", .number("3")),
            ("type", .string(type.rawValue)),
        ]
        let reason = outcome == .failure || wanted(.reason) ? "invalid_signature" : nil
        if let owasp = type.owaspName(outcome: outcome, reason: reason) { members.append(("owasp", .string(owasp))) }
        members += [("occurred_at", .string("2026-11-27T09:00:00.250000Z")), ("outcome", .string(outcome.rawValue))]
        if let reason { members.append(("reason", .string(reason))) }
        if wanted(.provider) { members.append(("provider", .string(full ? "github" : "apple"))) }
        if wanted(.userID) { members.append(("user_id", .string("0199a0a0-0000-7000-8000-00000000aaaa"))) }
        if wanted(.sessionID) { members.append(("session_id", .string("0199a0a0-0000-7000-8000-00000000bbbb"))) }
        if full {
            members += [
                ("client_id", .string("com.example.app")), ("ip", .string("2001:db8::7")),
                ("user_agent", .string("App/1 \"quoted\"")), ("request_id", .string("req-1")),
            ]
        }
        var data: [(name: String, value: JSONValue)] = []
        if full {
            data = [
                ("method", .string("access_token")), ("subject_hash", .string(String(repeating: "ab", count: 32))),
                ("actor", .string("key:siem")), ("route", .string("signin")), ("notice", .string("consent-revoked")),
            ]
            data +=
                Self.failureData(type) ?? [
                    ("first_at", .string(Self.windowStart)), ("last_at", .string("2026-11-27T09:00:00Z")),
                    type == .requestRefused || type == .tokenAccessRefused
                        ? ("counts", .object([("per_address_cap", .number("4")), ("malformed", .number("3"))]))
                        : ("count", .number("7")),
                ]
        }
        members += [
            ("data", .object(data)), ("schema_version", .number("1")),
            ("recorded_at", .string("2026-11-27T09:00:00.300000Z")),
            ("digest", .string(String(repeating: "0d", count: 32))),
            ("leaf_hash", .string(String(repeating: "1e", count: 32))),
        ]
        return .object(members)
    }

    /// When the window of a sample that stands for many occurrences begins: 60 s before `occurred_at`.
    public static let windowStart = "2026-11-27T08:59:00.000000Z"

    /// The `data` of the audit trail's own failures, encoded from their payload types (so with their real member
    /// names), each standing for 7 occurrences from ``windowStart``; nil for the other types.
    static func failureData(_ type: EventType) -> [(name: String, value: JSONValue)]? {
        let end = "2026-11-27T09:00:00Z"
        let payload: (any EventPayload)?
        switch type {
        case .auditWriteOutage:
            payload = AuditWriteOutage(
                startedAt: Self.windowStart,
                endedAt: end,
                refusedRoutes: ["/v1/signin/{provider}": 4, "/v1/token/refresh": 3],
                error: "server_error 53100"
            )
        case .auditRefusalsDropped:
            payload = AuditRefusalsDropped(events: 2, requests: 7, firstDroppedAt: Self.windowStart, lastDroppedAt: end)
        case .auditSinkFailing:
            payload = AuditSinkFailing(
                sink: "siem",
                failingSince: Self.windowStart,
                failures: 7,
                lastError: "answered HTTP 503",
                deliveredThrough: 40,
                lagEvents: 2
            )
        case .auditSinkRecovered:
            payload = AuditSinkRecovered(
                sink: "siem",
                failingSince: Self.windowStart,
                recoveredAt: end,
                failures: 7,
                deliveredThrough: 41
            )
        case .auditCheckpointFailing:
            payload = AuditCheckpointFailing(
                failingSince: Self.windowStart,
                failures: 7,
                lastError: "the checkpoint directory cannot be written",
                lastSignedSize: 40
            )
        case .auditCheckpointRecovered:
            payload = AuditCheckpointRecovered(
                failingSince: Self.windowStart,
                recoveredAt: end,
                failures: 7,
                signedSize: 44
            )
        case .auditSealingStalled:
            payload = AuditSealingStalled(
                stalledSince: Self.windowStart,
                waitedSeconds: 75,
                headQueued: 40,
                queuedEvents: 12
            )
        case .auditSealingRecovered:
            payload = AuditSealingRecovered(stalledSince: Self.windowStart, recoveredAt: end)
        case .auditWitnessFailing:
            payload = AuditWitnessFailing(
                witness: "witness.example/w1",
                failingSince: Self.windowStart,
                failures: 7,
                lastError: "answered HTTP 403",
                cosignedSize: 40
            )
        case .auditWitnessRecovered:
            payload = AuditWitnessRecovered(
                witness: "witness.example/w1",
                failingSince: Self.windowStart,
                recoveredAt: end,
                failures: 7,
                cosignedSize: 44
            )
        default: payload = nil
        }
        guard let payload else { return nil }
        return (try? JSONValue(encoding: payload))?.objectMembers ?? []
    }

    /// A note of size 64 signed by the log and cosigned by one witness (the bytes need not verify here).
    public static let note =
        "audit.example/log\n64\n\(Data(repeating: 7, count: 32).base64EncodedString())\n\n"
        + "\u{2014} audit.example/log \(Data([1, 2, 3, 4] + [UInt8](repeating: 9, count: 64)).base64EncodedString())\n"
        + "\u{2014} witness.example \(Data([5, 6, 7, 8] + [0, 0, 0, 0, 0x69, 0x2a, 0, 0] + [UInt8](repeating: 9, count: 64)).base64EncodedString())\n"

    /// No evidence, a pending event after another, and a checkpointed one.
    public static let evidences: [OCSFRecordEvidence?] = [
        nil,
        OCSFRecordEvidence(
            origin: nil,
            previous: OCSFRecordEvidence.Previous(
                eventID: "0199a0a0-0000-7000-8000-000000000041",
                typeUID: nil,
                digest: nil
            ),
            checkpoint: nil
        ),
        OCSFRecordEvidence(
            origin: "audit.example/log",
            previous: OCSFRecordEvidence.Previous(
                eventID: "0199a0a0-0000-7000-8000-000000000041",
                typeUID: 300_201,
                digest: String(repeating: "0c", count: 32)
            ),
            checkpoint: OCSFRecordEvidence.Checkpoint(
                size: 64,
                note: Self.note,
                proof: [[UInt8](repeating: 3, count: 32)]
            )
        ),
    ]

    /// `line` (a JSON object) with `change` applied to its members, as canonical JSON: an altered line, for the
    /// tests that show a check refuses it.
    /// - Throws: when `line` is not JSON.
    public static func edited(
        _ line: String,
        _ change: (inout [(name: String, value: JSONValue)]) -> Void
    ) throws -> String {
        var members = try JSONParser().parse(line).objectMembers ?? []
        change(&members)
        return JSONValue.object(members).canonicalText
    }

    /// The OCSF line of every type, with each outcome it may have, with only its required columns and with every
    /// column, without evidence, pending and checkpointed; each labelled `<type> <outcome> full=<bool> #<evidence>`.
    public static func lines() -> [(label: String, line: String)] {
        var lines: [(label: String, line: String)] = []
        for type in EventType.allCases {
            for outcome in type.fixedOutcome.map({ [$0] }) ?? Outcome.allCases {
                for full in [false, true] {
                    for (index, evidence) in Self.evidences.enumerated() {
                        let line = OCSFEvent.line(Self.exportEvent(type, outcome, full: full), evidence: evidence)
                        lines.append(("\(type.rawValue) \(outcome) full=\(full) #\(index)", line))
                    }
                }
            }
        }
        return lines
    }
}
