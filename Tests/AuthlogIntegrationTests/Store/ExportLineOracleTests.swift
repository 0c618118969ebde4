import AuthlogCore
import AuthlogPostgres
import AuthlogTesting
import Foundation
import Testing

@testable import AuthlogStore

/// The export line as PostgreSQL built it until the line moved to Swift (``ExportLine``): `to_json` escaped the
/// strings, `to_char` wrote the times and a `CASE` chose the OWASP name. Kept here as the oracle that the Swift
/// line must equal byte for byte, so that a consumer's parser or dedup by line never sees the move.
enum SQLExportLine {
    /// The line of a row `e` with the columns of `authlog.events`, as one text built by PostgreSQL.
    static let line: String = {
        func time(_ column: String) -> String {
            "to_json(to_char(e.\(column) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'))"
        }
        func optional(_ name: String, _ expression: String) -> String {
            "CASE WHEN \(expression) IS NULL THEN '' ELSE ',\"\(name)\":' || to_json(\(expression))::text END"
        }
        let owasp = Self.owaspNameExpression(type: "e.type", outcome: "e.outcome", reason: "e.reason")
        let parts = [
            "'{\"position\":' || e.position",
            "',\"event_id\":\"' || e.event_id || '\"'",
            "',\"stream\":' || to_json(e.stream)",
            "',\"stream_version\":' || e.stream_version",
            "',\"type\":' || to_json(e.type)",
            "COALESCE(',\"owasp\":\"' || \(owasp) || '\"', '')",
            "',\"occurred_at\":' || \(time("occurred_at"))",
            "',\"outcome\":' || to_json(e.outcome)",
            optional("reason", "e.reason"), optional("provider", "e.provider"), optional("user_id", "e.user_id"),
            optional("session_id", "e.session_id"), optional("client_id", "e.client_id"),
            optional("ip", "host(e.ip)"), optional("user_agent", "e.user_agent"),
            optional("request_id", "e.request_id"),
            "',\"data\":' || e.data::text",
            "',\"schema_version\":' || e.schema_version",
            "',\"recorded_at\":' || \(time("recorded_at"))",
            "',\"digest\":\"' || encode(e.digest, 'hex') || '\"'",
            "',\"leaf_hash\":\"' || encode(e.leaf_hash, 'hex') || '\"}'",
        ]
        return parts.joined(separator: "\n    || ")
    }()

    /// A SQL expression giving an event's OWASP Logging Vocabulary name (``EventType/owaspName(outcome:reason:)``),
    /// or NULL when it has none, from the text expressions of its `type`, `outcome` and `reason`.
    ///
    /// Built from ``EventType/owaspRules`` so that the export and the Swift function never disagree: one
    /// `CASE` over the type, and within it the type's rules in order (a type named whatever its outcome and
    /// reason gets its name directly). Every literal is one of authlog's own type names, outcomes, reasons and
    /// vocabulary names, quoted as SQL text; the names are lowercase letters and `_` only
    /// (`OWASPVocabularyTests`), so they need no escaping as JSON strings either.
    static func owaspNameExpression(type: String, outcome: String, reason: String) -> String {
        func literal(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }
        var branches: [String] = []
        for eventType in EventType.allCases {
            let rules = eventType.owaspRules
            guard rules.contains(where: { $0.name != nil }) else { continue }
            if rules.count == 1, rules[0].outcome == nil, rules[0].reasons == nil, let name = rules[0].name {
                branches.append("WHEN \(literal(eventType.rawValue)) THEN \(literal(name))")
                continue
            }
            let conditions = rules.map { rule -> String in
                var tests: [String] = []
                if let expected = rule.outcome { tests.append("\(outcome) = \(literal(expected.rawValue))") }
                if let reasons = rule.reasons {
                    tests.append("\(reason) IN (\(reasons.sorted().map(literal).joined(separator: ", ")))")
                }
                return "WHEN \(tests.isEmpty ? "TRUE" : tests.joined(separator: " AND ")) THEN "
                    + (rule.name.map(literal) ?? "NULL")
            }
            branches.append(
                "WHEN \(literal(eventType.rawValue)) THEN CASE \(conditions.joined(separator: " ")) END"
            )
        }
        return "CASE \(type) \(branches.joined(separator: " ")) END"
    }
}

/// The export line built in Swift has, for every row, the bytes PostgreSQL built: strings with every control
/// character, quotes, backslashes and non-ASCII text; every optional member set and unset; times before 1970,
/// at whole seconds and at the ends of the years authlog writes; and every type, outcome and reason the
/// OWASP names depend on.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct ExportLineOracleTests {
    /// Texts that each need a different escape, or none.
    static let texts: [String] = [
        "plain", "Agent \"quoted\" \\ back/slash", "한국어 🚀 \u{2028} é", "tab\there\nnew\rline",
        String((1..<32).map { Character(Unicode.Scalar(UInt8($0))) }) + "\u{7F}", "it's", "{\"json\":1}", "",
    ]

    /// Times as PostgreSQL text: before the epoch, whole seconds, the first and last microseconds of years,
    /// and year 10000 (an ingested `9999-12-31T23:59:59-05:00` is stored as that).
    static let times = [
        "1969-12-31 23:59:59.999999+00", "2026-11-27 15:43:12+00", "2026-11-27 15:43:12.5+00",
        "0001-01-01 00:00:00+00", "9999-12-31 23:59:59.999999+00", "2000-02-29 12:00:00.000001+00",
        "10000-01-01 04:59:59+00",
    ]

    @Test func theSwiftLineHasTheBytesOfTheSQLLineForEveryKindOfRow() async throws {
        let database = try await TestDatabase.make()
        let connection = try await database.connect()
        let ruleReasons = EventType.allCases.flatMap { $0.owaspRules.flatMap { $0.reasons ?? [] } }
        let reasons: [String?] = Array(Set(ruleReasons)).sorted() + ["unknown_token", nil]
        var types: [String?] = []
        var outcomes: [String?] = []
        var reasonColumn: [String?] = []
        for type in EventType.allCases {
            for outcome in Outcome.allCases {
                for reason in reasons {
                    types.append(type.rawValue)
                    outcomes.append(outcome.rawValue)
                    reasonColumn.append(reason)
                }
            }
        }
        let count = types.count
        let texts = (0..<count).map { Self.texts[$0 % Self.texts.count] }
        let times = (0..<count).map { Self.times[$0 % Self.times.count] }
        try await connection.execute("CREATE TEMP TABLE e (LIKE authlog.events)")
        // Each optional member is set or unset on its own rhythm, so every pattern of members occurs.
        try await connection.query(
            """
            INSERT INTO e (position, event_id, stream, stream_version, type, occurred_at, recorded_at, outcome,
                reason, provider, user_id, session_id, client_id, ip, user_agent, request_id, data,
                schema_version, digest, leaf_hash)
            SELECT n, gen_random_uuid(), 'signin-' || u.text, n, u.type, u.time::timestamptz,
                u.time::timestamptz + make_interval(secs => n / 1000.0), u.outcome, u.reason,
                CASE WHEN n % 2 = 0 THEN u.text END, CASE WHEN n % 3 = 0 THEN gen_random_uuid() END,
                CASE WHEN n % 5 = 0 THEN gen_random_uuid() END, CASE WHEN n % 7 <> 0 THEN u.text END,
                (ARRAY['2001:db8::7', '192.0.2.1', '10.0.0.0/8', NULL]::inet[])[n % 4 + 1],
                CASE WHEN n % 3 <> 1 THEN u.text END, CASE WHEN n % 2 = 1 THEN 'req-' || u.text END,
                jsonb_build_object('text', u.text, 'n', n, 'nested', jsonb_build_array(1.5, true, NULL)),
                1 + n % 3, sha256(convert_to(n::text, 'UTF8')), sha256(convert_to(u.text, 'UTF8'))
            FROM unnest(\(ArrayLiteral(types))::text[], \(ArrayLiteral(outcomes))::text[],
                \(ArrayLiteral(reasonColumn))::text[], \(ArrayLiteral(texts))::text[], \(ArrayLiteral(times))::text[])
                WITH ORDINALITY AS u(type, outcome, reason, text, time, n)
            """
        )
        let built = try await connection.query(
            "SELECT \(unescaped: ExportLine.columns) FROM e ORDER BY position"
        ).rows.map(ExportLine.make(from:))
        let expected = try await connection.query(
            "SELECT e.position, \(unescaped: SQLExportLine.line) FROM e ORDER BY position"
        ).rows
        try #require(built.count == count && expected.count == count)
        var named = 0
        for (line, row) in zip(built, expected) {
            let sqlLine = try row.decode(String.self, at: 1)
            #expect(line.position == (try row.decode(Int64.self, at: 0)))
            #expect(line.json == sqlLine, "position \(line.position)")
            if line.json.contains(",\"owasp\":") { named += 1 }
        }
        #expect(named > 0 && named < count, "some rows have an OWASP name and some have none")
        #expect(built.contains { $0.json.contains("\\u001f") && $0.json.contains("\\b") })
    }
}
