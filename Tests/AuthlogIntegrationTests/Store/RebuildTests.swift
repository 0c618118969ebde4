import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import Testing

@Suite(.enabled(if: TestDatabase.isAvailable))
struct RebuildTests {
    @Test func tenThousandRandomEventsRebuildExactlyAndAnAlteredRowIsReported() async throws {
        let database = try await TestDatabase.make()
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo, maximumConnections: 4))
        var traffic = TrafficGenerator(seed: 2026)
        var actions: [[EventEnvelope]] = []
        var count = 0
        while count < 10_000 {
            let action = traffic.nextAction()
            actions.append(action)
            count += action.count
        }
        // Concurrent appenders, so that the live projections were written in batches of many sizes.
        let chunks = stride(from: 0, to: actions.count, by: 50).map { Array(actions[$0..<min($0 + 50, actions.count)]) }
        for chunk in chunks {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for action in chunk {
                    group.addTask { try await store.append(AppendCommand(events: action)) }
                }
                try await group.waitForAll()
            }
        }
        try await store.sealPending()
        #expect(try await database.scalar("SELECT count(*) FROM authlog.events") == Int64(count))
        for table in ["users", "sessions", "refresh_tokens", "signins_daily", "identities"] {
            #expect(try await database.scalar(SQLQuery(unsafeSQL: "SELECT count(*) FROM authlog.\(table)")) > 0)
        }
        #expect(try await database.scalar("SELECT count(DISTINCT state) FROM authlog.sessions") == 4)
        #expect(try await database.scalar("SELECT count(DISTINCT state) FROM authlog.refresh_tokens") == 3)

        let rebuilder = ProjectionRebuilder(pageSize: 1500)
        #expect(try await rebuilder.check(on: database.connect()) == [])

        try await database.connect().execute(
            """
            UPDATE authlog.sessions SET state = 'active', ended_at = NULL, end_reason = NULL
            WHERE session_id = (SELECT session_id FROM authlog.sessions WHERE state = 'logged_out' LIMIT 1)
            """
        )
        let differences = try await rebuilder.check(on: database.connect())
        #expect(differences.map(\.table) == ["sessions"])
        #expect(differences.first?.count == 2)
        #expect(differences.first?.onlyLive.first?.contains(",active,") == true)
        #expect(differences.first?.onlyRebuilt.first?.contains(",logged_out,") == true)

        let repaired = try await rebuilder.rebuild(on: database.connect())
        #expect(repaired.map(\.table) == ["sessions"])
        #expect(try await rebuilder.check(on: database.connect()) == [])

        // The report roll-ups are checked too: a count changed by hand is found, and a rebuild counts again.
        try await ReportRollups.fold(using: ConnectionPool(conninfo: database.conninfo, maximumConnections: 1))
        try await database.connect().execute(
            "UPDATE authlog.report_counts SET n = n + 1 WHERE (hour, metric) = (SELECT hour, metric FROM authlog.report_counts LIMIT 1)"
        )
        #expect(try await rebuilder.check(on: database.connect()).map(\.table) == ["report_counts"])
        #expect(try await rebuilder.rebuild(on: database.connect()).map(\.table) == ["report_counts"])
        #expect(try await rebuilder.check(on: database.connect()) == [])
        #expect(try await database.scalar("SELECT count(*) FROM authlog.report_counts_daily") > 0)
        try await database.connect().execute(
            "DELETE FROM authlog.report_counts_daily WHERE day = (SELECT max(day) FROM authlog.report_counts_daily)"
        )
        let daily = try await rebuilder.check(on: database.connect())
        #expect(daily.map(\.table) == ["report_counts"], "\(daily)")
        #expect(try await rebuilder.rebuild(on: database.connect()).map(\.table) == ["report_counts"])
        #expect(try await rebuilder.check(on: database.connect()) == [])
    }

    /// Events committed but not sealed yet are in the projections already: the check replays them after the
    /// sealed log, and a rebuild seals them first.
    @Test func checkAndRebuildCountTheEventsWaitingForTheSealer() async throws {
        let database = try await TestDatabase.make()
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo, maximumConnections: 3))
        var traffic = TrafficGenerator(seed: 41)
        try await store.append(AppendCommand(events: traffic.events(count: 200)))
        try await store.sealPending()
        let blocker = try await database.connect()
        try await blocker.execute("BEGIN; SELECT * FROM authlog.log_head FOR UPDATE")
        for _ in 0..<20 { try await store.append(AppendCommand(events: traffic.nextAction())) }
        #expect(try await database.scalar("SELECT count(*) FROM authlog.unsealed_events") > 0)
        let rebuilder = ProjectionRebuilder(pageSize: 70)
        #expect(try await rebuilder.check(on: database.connect()) == [])
        try await blocker.execute("ROLLBACK")
        #expect(try await rebuilder.rebuild(on: database.connect()) == [])
        #expect(try await database.scalar("SELECT count(*) FROM authlog.unsealed_events") == 0)
        #expect(try await verify(database) == intact(database))
    }

    @Test func signinsDailyCountsEveryAttemptOnce() async throws {
        let database = try await TestDatabase.make()
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo))
        var traffic = TrafficGenerator(seed: 99)
        let events = traffic.events(count: 600)
        for start in stride(from: 0, to: events.count, by: 37) {
            try await store.append(AppendCommand(events: Array(events[start..<min(start + 37, events.count)])))
        }
        try await store.sealPending()
        let fromEvents = try await database.scalar(
            "SELECT count(*) FROM authlog.events WHERE type IN ('signin.succeeded', 'signin.failed')"
        )
        #expect(
            try await database.scalar("SELECT coalesce(sum(signins), 0)::bigint FROM authlog.signins_daily")
                == fromEvents
        )
    }
}
