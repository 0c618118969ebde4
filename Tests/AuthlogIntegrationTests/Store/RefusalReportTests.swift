import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import Testing

/// The failures report counts the requests that aggregated refusal events account for (migration 19), the
/// same whether a range's edges read them item by item or from the roll-ups, pending or folded, and after
/// `rebuild` counts everything again.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct RefusalReportTests {
    static func byReason(_ report: Report) -> [String: Int64] {
        Dictionary(uniqueKeysWithValues: report.rows.map { (report.key(.reason, in: $0) ?? "", $0.values[0]) })
    }

    @Test func refusalsCountTheRequestsTheirEventsAccountForNotTheEvents() async throws {
        let database = try await TestDatabase.make()
        var traffic = TrafficGenerator(seed: 31)
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo, maximumConnections: 3))
        let refusals = try RefusalFixtures.events()
        // The first half is folded into the hourly and daily counts, the rest waits in report_pending.
        try await store.append(AppendCommand(events: traffic.events(count: 1_500) + refusals.prefix(5)))
        try await ReportRollups.fold(using: store.pool)
        try await store.append(AppendCommand(events: traffic.events(count: 500) + refusals.dropFirst(5)))
        let connection = try await database.connect()
        #expect(
            try await database.scalar("SELECT count(*) FROM authlog.report_counts WHERE metric = 'refused'") > 0,
            "refusals were folded"
        )
        #expect(
            try await database.scalar("SELECT count(*) FROM authlog.report_pending WHERE metric = 'refused'") > 0,
            "refusals wait to be folded"
        )

        // Held to the requests counted here from the events' data, by every kind and grouping, over ranges
        // that cut hours and days.
        let items = try await ReportQueryTests.items(database)
        let everyRefusal: Int64 = 5_000 + 7 + 11 + 5 + 40 + 1 + 1
        #expect(items.refusals.map(\.count).reduce(0, +) == everyRefusal)
        for (since, until) in [
            (RefusalFixtures.since, RefusalFixtures.until), ("2026-10-04", "2026-10-06"),
            ("2026-10-04T12:30:00Z", "2026-10-04T12:50:00Z"), ("2026-10-03T22:10:00Z", "2026-10-05T03:00:00.000001Z"),
            ("2026-10-01", "2026-11-01"),
        ] {
            _ = try await ReportQueryTests.checkEveryKindAndGrouping(since, until, items, on: connection)
        }

        let query = try ReportQuery(
            kind: .failures,
            since: try RefusalFixtures.at(RefusalFixtures.since),
            until: try RefusalFixtures.at(RefusalFixtures.until),
            dimensions: [.reason]
        )
        let report = try await query.run(on: connection)
        let rows = Self.byReason(report)
        for (reason, count) in RefusalFixtures.expectedInRange {
            #expect(rows[reason] == count, "\(reason)")
        }
        #expect(rows["rate_limited:refresh"] == nil && rows["request_refused:connection_cap"] == nil, "outside")
        #expect(!rows.keys.contains { $0.contains("anonymous_read") }, "anonymous reads are not refusals")
        let signinFailures = rows.filter { !RefusalReason.isRefusal($0.key) }.values.reduce(0, +)
        let refusedInRange: Int64 = 5_046
        #expect(report.total == [signinFailures + refusedInRange], "the total adds the requests refused")
        #expect(
            try await database.scalar(
                "SELECT count(*) FROM authlog.event_records WHERE type = 'ratelimit.exceeded' AND data->>'route' = 'signin'"
            ) == 3,
            "5,011 refused sign-ins, three events"
        )
        // Inside one hour, item by item alone: the 4,999 of one event.
        let inside = try ReportQuery(
            kind: .failures,
            since: try RefusalFixtures.at("2026-10-04T12:30:00Z"),
            until: try RefusalFixtures.at("2026-10-04T12:50:00Z"),
            dimensions: [.reason]
        )
        #expect(Self.byReason(try await inside.run(on: connection))["rate_limited:signin"] == 4_999)
        // Sign-in reports do not count refusals.
        let signins = try ReportQuery(kind: .signins, since: query.since, until: query.until, dimensions: [])
        #expect(try await signins.run(on: connection).total[1] == signinFailures)

        // Folded, then counted again from the items as `rebuild` does: the same report.
        try await ReportRollups.fold(using: store.pool)
        #expect(try await query.run(on: connection) == report)
        #expect(
            try await database.scalar(
                """
                SELECT sum(n)::bigint FROM authlog.report_counts
                WHERE metric = 'refused' AND detail = 'rate_limited:signin'
                """
            ) == 5_011
        )
        try await connection.execute("SELECT authlog.recount_reports()")
        #expect(try await query.run(on: connection) == report)
        #expect(
            try await database.scalar(
                """
                SELECT sum(n)::bigint FROM authlog.report_counts_daily
                WHERE metric = 'refused' AND detail = 'rate_limited:signin'
                """
            ) == 5_011
        )
    }

    /// `rebuild --check` holds the refusal counts to the events too: unchanged counts pass, a changed one is
    /// found and `rebuild` counts it again.
    @Test func rebuildChecksAndRecountsTheRefusals() async throws {
        let database = try await TestDatabase.make()
        var traffic = TrafficGenerator(seed: 32)
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo, maximumConnections: 3))
        try await store.append(AppendCommand(events: traffic.events(count: 800) + RefusalFixtures.events()))
        try await ReportRollups.fold(using: store.pool)
        let query = try ReportQuery(
            kind: .failures,
            since: try RefusalFixtures.at(RefusalFixtures.since),
            until: try RefusalFixtures.at(RefusalFixtures.until),
            dimensions: [.reason]
        )
        let before = try await query.run(on: database.connect())
        #expect(Self.byReason(before)["rate_limited:signin"] == 5_000)
        let rebuilder = ProjectionRebuilder(pageSize: 500)
        #expect(try await rebuilder.check(on: database.connect()) == [])

        try await database.connect().execute(
            """
            UPDATE authlog.report_counts SET n = 1
            WHERE metric = 'refused' AND detail = 'rate_limited:signin' AND hour = '2026-10-04T12:00:00Z'
            """
        )
        #expect(Self.byReason(try await query.run(on: database.connect()))["rate_limited:signin"] == 2)
        let differences = try await rebuilder.check(on: database.connect())
        #expect(differences.map(\.table) == ["report_counts"], "\(differences)")
        let rebuilt = differences.first?.onlyRebuilt ?? []
        #expect(rebuilt.contains { $0.contains("rate_limited:signin") && $0.contains("4999") }, "\(rebuilt)")
        #expect(try await rebuilder.rebuild(on: database.connect()).map(\.table) == ["report_counts"])
        #expect(try await rebuilder.check(on: database.connect()) == [])
        #expect(try await query.run(on: database.connect()) == before)
    }

    /// A count that is not a whole number of at least 1 still counts its event once, and never fails the
    /// writer's insert.
    @Test func malformedCountsCountOnce() async throws {
        let database = try await TestDatabase.make()
        let connection = try await database.connect()
        for (value, expected) in [
            ("1", 1), ("4999", 4_999), ("2.9", 2), ("0", 1), ("-5", 1), ("\"12\"", 1), ("null", 1), ("1e30", 1),
            ("{}", 1),
        ] as [(String, Int64)] {
            let counted = try await database.scalar(
                SQLQuery(unsafeSQL: "SELECT authlog.refusal_count('\(value)'::jsonb)")
            )
            #expect(counted == expected, "\(value)")
        }
        #expect(try await database.scalar("SELECT authlog.refusal_count(NULL)") == 1)
        let rows = try await connection.query(
            """
            SELECT detail, n FROM authlog.refusal_items('request.refused', 'failure', 'malformed', '{"counts": []}')
            UNION ALL
            SELECT detail, n FROM authlog.refusal_items('audit.accessed', 'success', NULL, '{"count": 3}')
            UNION ALL
            SELECT detail, n FROM authlog.refusal_items('signin.failed', 'failure', 'bad_proof', '{"count": 3}')
            UNION ALL
            SELECT detail, n FROM authlog.refusal_items('ratelimit.exceeded', 'failure', 'rate_limited', '{}')
            """
        )
        let found = try rows.rows.map { "\(try $0.decode(String.self, at: 0))=\(try $0.decode(Int64.self, at: 1))" }
        #expect(found == ["request_refused:malformed=1", "rate_limited:=1"])
    }
}
