import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

/// Every report kind against counts computed here, item by item from the raw rows (sign-in events and the
/// sessions projection), independently of the roll-ups, for ranges that cut days and hours and for ranges
/// over months retention dropped.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct ReportQueryTests {
    /// What the roll-ups count, read raw: one entry per item.
    struct Items {
        struct Signin {
            var at: Timestamp
            var succeeded: Bool
            var provider: String
            var client: String
            var reason: String
        }
        struct Session {
            var provider: String
            var client: String
            var started: Timestamp
            var ended: Timestamp?
            var cause: String?
        }
        /// Requests refused without a sign-in event each, as one aggregated event records them.
        struct Refusal {
            var at: Timestamp
            var provider: String
            var client: String
            var reason: String
            var count: Int64
        }
        /// One judgement of a `signin.flagged`.
        struct Alert {
            var at: Timestamp
            var provider: String
            var client: String
            var judgement: String
            var decision: String
        }
        var signins: [Signin] = []
        var sessions: [Session] = []
        var refusals: [Refusal] = []
        var alerts: [Alert] = []
    }

    /// `events` with a `signin.flagged` after every seventh successful sign-in, its judgements and decision
    /// picked from the sign-in's event id (so the traffic generator's own sequence is untouched).
    static func withAlerts(_ events: [EventEnvelope]) throws -> [EventEnvelope] {
        var result: [EventEnvelope] = []
        var signins = 0
        for event in events {
            result.append(event)
            guard event.type == .signinSucceeded, let userID = event.userID else { continue }
            signins += 1
            guard signins % 7 == 0 else { continue }
            let seed = Int(event.eventID.uuid.15)
            let kinds = SigninJudgement.Kind.allCases
            let judgements = [kinds[seed % kinds.count], kinds[(seed / 5 + 1) % kinds.count]].map {
                SigninJudgement(kind: $0)
            }
            let decision = SigninAlertDecision.allCases[seed % SigninAlertDecision.allCases.count]
            result.append(
                try EventEnvelope(
                    SigninFlagged(
                        judgedEventID: event.eventID,
                        judgements: Array(Set(judgements.map(\.kind))).sorted { $0.rawValue < $1.rawValue }
                            .map { SigninJudgement(kind: $0) },
                        decision: decision
                    ),
                    stream: StreamName(category: "user", id: userID.lowercased),
                    occurredAt: event.occurredAt,
                    outcome: decision.admits ? .success : .failure,
                    reason: judgements[0].kind.rawValue,
                    provider: event.provider,
                    userID: userID,
                    clientID: event.clientID
                )
            )
        }
        return result
    }

    /// The refused requests one event accounts for, by the failures report's reason, read here from its
    /// data (docs/operations.md, "Refused requests in the failures report"): a count is 1 when absent.
    static func refusals(type: String, outcome: String, reason: String?, data: JSONValue) -> [(String, Int64)] {
        func count(_ value: JSONValue?) -> Int64 { value?.integerValue.flatMap { $0 >= 1 ? $0 : nil } ?? 1 }
        switch type {
        case "ratelimit.exceeded":
            return [("rate_limited:" + (data["route"]?.stringValue ?? ""), count(data["count"]))]
        case "request.refused":
            if let counts = data["counts"]?.objectMembers, !counts.isEmpty {
                return counts.map { ("request_refused:" + $0.name, count($0.value)) }
            }
            return [("request_refused:" + (reason ?? ""), 1)]
        case "audit.accessed":
            if let reasons = data["reasons"]?.objectMembers {
                return reasons.filter { $0.name != "anonymous_read" }.map {
                    ("audit_refused:" + $0.name, count($0.value))
                }
            }
            return outcome == "failure" ? [("audit_refused:" + (reason ?? ""), count(data["count"]))] : []
        default:
            return []
        }
    }

    static func items(_ database: TestDatabase) async throws -> Items {
        let connection = try await database.connect()
        var items = Items()
        for row in try await connection.query(
            """
            SELECT occurred_at, type = 'signin.succeeded', coalesce(provider, '(none)'), coalesce(client_id, '(none)'),
                   coalesce(reason, '(none)')
            FROM authlog.event_records WHERE type IN ('signin.succeeded', 'signin.failed')
            """
        ).rows {
            let succeeded = try row.decode(Bool.self, at: 1)
            items.signins.append(
                .init(
                    at: try row.decode(Timestamp.self, at: 0),
                    succeeded: succeeded,
                    provider: try row.decode(String.self, at: 2),
                    client: try row.decode(String.self, at: 3),
                    reason: succeeded ? "(none)" : try row.decode(String.self, at: 4)
                )
            )
        }
        for row in try await connection.query(
            """
            SELECT occurred_at, type, outcome, reason, coalesce(provider, '(none)'), coalesce(client_id, '(none)'), data
            FROM authlog.event_records WHERE type IN ('ratelimit.exceeded', 'request.refused', 'audit.accessed')
            """
        ).rows {
            let refused = Self.refusals(
                type: try row.decode(String.self, at: 1),
                outcome: try row.decode(String.self, at: 2),
                reason: try row.decode(String?.self, at: 3),
                data: try row.decode(JSONValue.self, at: 6)
            )
            for (reason, count) in refused {
                items.refusals.append(
                    .init(
                        at: try row.decode(Timestamp.self, at: 0),
                        provider: try row.decode(String.self, at: 4),
                        client: try row.decode(String.self, at: 5),
                        reason: reason,
                        count: count
                    )
                )
            }
        }
        for row in try await connection.query(
            """
            SELECT occurred_at, coalesce(provider, '(none)'), coalesce(client_id, '(none)'), data
            FROM authlog.event_records WHERE type = 'signin.flagged'
            """
        ).rows {
            let data = try row.decode(JSONValue.self, at: 3)
            guard case .array(let judgements) = data["judgements"] else { continue }
            for judgement in judgements {
                items.alerts.append(
                    .init(
                        at: try row.decode(Timestamp.self, at: 0),
                        provider: try row.decode(String.self, at: 1),
                        client: try row.decode(String.self, at: 2),
                        judgement: judgement["kind"]?.stringValue ?? "",
                        decision: data["decision"]?.stringValue ?? ""
                    )
                )
            }
        }
        for row in try await connection.query(
            "SELECT provider, coalesce(client_id, '(none)'), started_at, ended_at, state, end_reason FROM authlog.sessions"
        ).rows {
            let state = try row.decode(String.self, at: 4)
            let reason = try row.decode(String?.self, at: 5)
            let cause: String? =
                switch (state, reason) {
                case ("active", _): nil
                case ("logged_out", _): "logout"
                case ("expired", _): "expiry"
                case (_, "reuse"): "reuse"
                case (_, "account_deleted"): "deletion"
                case (_, "token_revoked"): "user"
                case (_, "admin"): "admin"
                case (_, "provider_consent_revoked"): "provider_notice"
                case (_, "credential_revoked"), (_, "credential_not_found"): "credential_state"
                default: "other"
                }
            items.sessions.append(
                .init(
                    provider: try row.decode(String.self, at: 0),
                    client: try row.decode(String.self, at: 1),
                    started: try row.decode(Timestamp.self, at: 2),
                    ended: try row.decode(Timestamp?.self, at: 3),
                    cause: cause
                )
            )
        }
        return items
    }

    /// The report `query` must give, counted item by item.
    static func expected(_ query: ReportQuery, _ items: Items) -> (rows: [[String]: [Int64]], total: [Int64]) {
        let measures = query.kind.measures
        var rows: [[String]: [Int64]] = [:]
        var total = [Int64](repeating: 0, count: measures.count)
        func keys(day: Timestamp, provider: String, client: String, reason: String) -> [String] {
            query.dimensions.map { dimension in
                switch dimension {
                case .day: day.dayString
                case .provider: provider
                case .client: client
                case .reason: reason
                }
            }
        }
        func add(_ key: [String], _ measure: String, _ count: Int64 = 1) {
            guard let index = measures.firstIndex(of: measure) else { return }
            rows[key, default: [Int64](repeating: 0, count: measures.count)][index] += count
            total[index] += count
        }
        func inRange(_ time: Timestamp) -> Bool { query.since <= time && time < query.until }
        switch query.kind {
        case .signins, .failures:
            for item in items.signins where inRange(item.at) && (query.kind == .signins || !item.succeeded) {
                add(
                    keys(day: item.at, provider: item.provider, client: item.client, reason: item.reason),
                    item.succeeded ? "succeeded" : "failed"
                )
            }
            for item in items.refusals where query.kind == .failures && inRange(item.at) {
                add(
                    keys(day: item.at, provider: item.provider, client: item.client, reason: item.reason),
                    "failed",
                    item.count
                )
            }
        case .alerts:
            for item in items.alerts where inRange(item.at) {
                add(
                    keys(day: item.at, provider: item.provider, client: item.client, reason: item.judgement),
                    item.decision
                )
            }
        case .revocations:
            for item in items.sessions {
                guard let ended = item.ended, let cause = item.cause, inRange(ended), cause != "logout",
                    cause != "expiry"
                else { continue }
                add(keys(day: ended, provider: item.provider, client: item.client, reason: cause), "revocations")
            }
        case .sessions:
            for item in items.sessions {
                if inRange(item.started) {
                    add(keys(day: item.started, provider: item.provider, client: item.client, reason: ""), "started")
                }
                if let ended = item.ended, let cause = item.cause, inRange(ended) {
                    let column =
                        [
                            "logout": "ended_logout", "expiry": "ended_expiry", "reuse": "ended_reuse",
                            "deletion": "ended_deletion",
                        ][cause] ?? "ended_revocation"
                    add(keys(day: ended, provider: item.provider, client: item.client, reason: ""), column)
                }
            }
            // Active at the end of each row's day (or of the range), and of the whole range.
            func active(at end: Timestamp, provider: String?, client: String?) -> Int64 {
                Int64(
                    items.sessions.filter { item in
                        item.started < end && (item.ended.map { $0 >= end } ?? true)
                            && (provider.map { $0 == item.provider } ?? true)
                            && (client.map { $0 == item.client } ?? true)
                    }.count
                )
            }
            let activeIndex = measures.count - 1
            let dayIndex = query.dimensions.firstIndex(of: .day)
            let providerIndex = query.dimensions.firstIndex(of: .provider)
            let clientIndex = query.dimensions.firstIndex(of: .client)
            if dayIndex == nil {
                // Groups with sessions active at the end but nothing in the range have rows too.
                for item in items.sessions where item.started < query.until {
                    rows[keys(day: query.since, provider: item.provider, client: item.client, reason: "")] =
                        rows[keys(day: query.since, provider: item.provider, client: item.client, reason: "")]
                        ?? [Int64](repeating: 0, count: measures.count)
                }
            }
            for key in rows.keys {
                var end = query.until
                if let dayIndex, let day = Timestamp(iso8601: key[dayIndex]) {
                    end = min(day.adding(seconds: 86_400), query.until)
                }
                rows[key]?[activeIndex] = active(
                    at: end,
                    provider: providerIndex.map { key[$0] },
                    client: clientIndex.map { key[$0] }
                )
            }
            total[activeIndex] = active(at: query.until, provider: nil, client: nil)
        }
        return (rows.filter { $0.value.contains { $0 != 0 } }, total)
    }

    static func check(
        _ query: ReportQuery,
        _ items: Items,
        on connection: Connection,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Report {
        let report = try await query.run(on: connection)
        let expected = Self.expected(query, items)
        let actual = Dictionary(uniqueKeysWithValues: report.rows.map { ($0.keys, $0.values) })
        let label = "\(query.kind) by \(query.dimensions.map(\.rawValue)) \(query.since)…\(query.until)"
        #expect(actual == expected.rows, "\(label)", sourceLocation: sourceLocation)
        #expect(report.total == expected.total, "\(label) total", sourceLocation: sourceLocation)
        #expect(
            report.rows.map(\.keys) == report.rows.map(\.keys).sorted { $0.lexicographicallyPrecedes($1) },
            "rows are sorted",
            sourceLocation: sourceLocation
        )
        return report
    }

    /// ``check(_:_:on:sourceLocation:)`` of every kind by every grouping it allows, over one range.
    static func checkEveryKindAndGrouping(
        _ since: String,
        _ until: String,
        _ items: Items,
        on connection: Connection,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [Report] {
        let start = try #require(Timestamp(iso8601: since))
        let end = try #require(Timestamp(iso8601: until))
        var reports: [Report] = []
        for kind in Report.Kind.allCases {
            for dimensions in Self.groupings where dimensions.allSatisfy(kind.dimensions.contains) {
                let query = try ReportQuery(kind: kind, since: start, until: end, dimensions: dimensions)
                reports.append(try await Self.check(query, items, on: connection, sourceLocation: sourceLocation))
            }
        }
        return reports
    }

    static let groupings: [[Report.Dimension]] = [
        [], [.provider], [.day], [.client], [.reason], [.day, .provider], [.provider, .client], [.day, .reason],
        [.day, .provider, .client, .reason],
    ]

    @Test func everyKindMatchesIndependentCountsOverRangesThatCutDaysAndHours() async throws {
        let database = try await TestDatabase.make()
        var traffic = TrafficGenerator(seed: 12)
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo))
        // Two appends: the first is folded into the counts (as serve does every second), the second waits in
        // report_pending.
        try await store.append(AppendCommand(events: try Self.withAlerts(traffic.events(count: 2500))))
        try await ReportRollups.fold(using: store.pool)
        try await store.append(AppendCommand(events: try Self.withAlerts(traffic.events(count: 1500))))
        let connection = try await database.connect()
        #expect(
            try await database.scalar("SELECT count(*) FROM authlog.report_counts") > 0,
            "the first append's counts were folded"
        )
        let items = try await Self.items(database)
        #expect(Set(items.sessions.compactMap(\.cause)).isSuperset(of: ["logout", "expiry", "reuse", "admin", "user"]))
        #expect(Set(items.alerts.map(\.decision)) == Set(SigninAlertDecision.allCases.map(\.rawValue)))
        let ranges: [(String, String)] = [
            ("2026-10-01", "2026-11-01"),
            ("2026-10-03T12:34:56.789Z", "2026-10-05T06:30:00Z"),
            ("2026-10-04T10:05:00Z", "2026-10-04T10:55:00Z"),
            ("2026-10-04T10:05:00Z", "2026-10-04T11:55:00Z"),
            ("2026-10-02", "2026-10-03"),
            ("2025-01-01", "2026-10-01"),
            ("2020-01-01", "2030-01-01"),
        ]
        var counted: Int64 = 0
        for (since, until) in ranges {
            for report in try await Self.checkEveryKindAndGrouping(since, until, items, on: connection) {
                counted += report.total.reduce(0, +)
            }
        }
        #expect(counted > 10_000, "the ranges hold enough to compare")
    }

    @Test func rangesOverDroppedMonthsKeepTheirCounts() async throws {
        let database = try await TestDatabase.make()
        let owner = try await database.connect()
        try await owner.execute(
            """
            SELECT authlog.create_log_partitions('2024-01-01', '2024-02-01');
            UPDATE authlog.log_epoch SET month = '2024-01-01'
            """
        )
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo, maximumConnections: 2))
        var january = TrafficGenerator(seed: 21, start: try #require(Timestamp(iso8601: "2024-01-01")))
        try await store.append(AppendCommand(events: january.events(count: 2000)))
        try await store.sealPending()
        let januaryEnd = try await database.scalar("SELECT max(position) FROM authlog.log_leaves")
        try await owner.execute("UPDATE authlog.log_epoch SET month = '2024-02-01'")
        var february = TrafficGenerator(seed: 22, start: try #require(Timestamp(iso8601: "2024-02-01")))
        try await store.append(AppendCommand(events: february.events(count: 2000)))
        try await store.sealPending()
        try await LogMonths.prepare(on: owner)
        try await owner.execute(
            """
            INSERT INTO authlog.checkpoints (tree_size, root, key_name, note, signed_at)
            SELECT size, root, 'test', 'test', now() FROM authlog.log_head
            """
        )
        let items = try await Self.items(database)

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authlog-rq-\(UUID())").path
        try PlaceholderExport.write(month: "2024-01", first: 1, last: januaryEnd, in: directory)
        let plan = try await Retention.plan(keepMonths: 12, exportDirectory: directory, on: owner)
        #expect(try await Retention.apply(plan, actor: "test", on: owner))
        #expect(
            try await database.scalar("SELECT count(*) FROM authlog.event_records WHERE occurred_at < '2024-01-25'")
                == 0,
            "January's events are gone"
        )

        // Edges on whole hours, inside and outside the dropped month: exactly the counts from before the drop.
        let ranges: [(String, String)] = [
            ("2024-01-01", "2024-03-01"), ("2024-01-03T05:00:00Z", "2024-02-05T17:00:00Z"),
            ("2024-01-10T07:00:00Z", "2024-01-12T03:00:00Z"), ("2024-02-02T03:17:00Z", "2024-02-09T22:45:10Z"),
        ]
        let keptFrom = try #require(Timestamp(iso8601: "2024-02-01"))
        for (since, until) in ranges {
            for report in try await Self.checkEveryKindAndGrouping(since, until, items, on: owner) {
                #expect((report.dropped != nil) == (report.since < keptFrom))
                #expect(report.widened == nil)
            }
        }

        // An edge inside the dropped month off the hour is widened to the hour, and said so.
        let query = try ReportQuery(
            kind: .signins,
            since: try #require(Timestamp(iso8601: "2024-01-05T10:30:00Z")),
            until: try #require(Timestamp(iso8601: "2024-01-09T00:00:00Z")),
            dimensions: [.provider]
        )
        let widened = try await query.run(on: owner)
        let hourly = try ReportQuery(
            kind: .signins,
            since: try #require(Timestamp(iso8601: "2024-01-05T10:00:00Z")),
            until: query.until,
            dimensions: [.provider]
        )
        #expect(widened.widened?.since == hourly.since)
        #expect(widened.total == Self.expected(hourly, items).total)
        #expect(widened.total.reduce(0, +) > 0)
    }

    /// The widest ranges a date can name are answered, not failed: no bound overflows on the way to SQL.
    @Test func extremeRangesAreAnswered() async throws {
        let database = try await TestDatabase.make()
        var traffic = TrafficGenerator(seed: 23)
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo))
        try await store.append(AppendCommand(events: traffic.events(count: 300)))
        let connection = try await database.connect()
        let items = try await Self.items(database)
        for (since, until) in [
            ("0001-01-01", "9999-12-31T23:59:59.999999Z"), ("1970-01-01", "1970-01-01T00:00:00.000001Z"),
            ("9999-12-31", "9999-12-31T23:59:59.999999Z"),
        ] {
            for kind in Report.Kind.allCases {
                let query = try ReportQuery(
                    kind: kind,
                    since: try #require(Timestamp(iso8601: since)),
                    until: try #require(Timestamp(iso8601: until)),
                    dimensions: [.day]
                )
                _ = try await Self.check(query, items, on: connection)
            }
        }
    }

    @Test func queriesRefuseWhatTheyCannotAnswer() throws {
        let now = Timestamp.now()
        #expect(throws: ReportQuery.Problem.emptyRange) {
            try ReportQuery(kind: .signins, since: now, until: now, dimensions: [])
        }
        #expect(throws: ReportQuery.Problem.unsupported(.reason, .sessions)) {
            try ReportQuery(kind: .sessions, since: now.adding(seconds: -1), until: now, dimensions: [.reason])
        }
    }
}
