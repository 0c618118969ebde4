import ArgumentParser
import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import Foundation

/// `authlog-bench report`: reports from the roll-ups against a plain scan of the events (and of the
/// sessions) for the same numbers, in the same run, over a fixture of 10 M events made with SQL.
struct ReportBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Measure reports from the roll-ups against a plain scan of the same rows.",
        discussion: """
            Fills a fresh database with --events events spread over the last 365 days (30 % sign-ins, 10 % \
            failed sign-ins, the rest refreshes; six providers, three clients, five failure reasons) with SQL, \
            and one session per successful sign-in (a quarter each logged out, expired, revoked and still \
            active), then counts the roll-ups again from these rows. Each report then runs --repeats times, \
            ending now (so both edges are partial hours), and so does its baseline: the same numbers by a \
            plain GROUP BY over event_records (index on type, occurred_at) or over sessions. Printed: the \
            median of each. Goals: a 30-day report by provider under 100 ms, a 365-day report by day under \
            300 ms.
            """
    )

    @OptionGroup var clusterOptions: ClusterOptions

    @Option(help: "Events in the fixture.")
    var events: Int = 10_000_000

    @Option(help: "Runs of each report and baseline; the median is printed.")
    var repeats: Int = 5

    @Flag(
        help: """
            Instead: reports on a hot standby while the primary takes refresh load, against the same reports on the \
            primary in the same run (a primary and standby of the benchmark's own, made with pg_basebackup -R).
            """
    )
    var standby = false

    @Option(help: "With --standby: seconds of each load phase.")
    var seconds: Double = 10

    func validate() throws {
        guard (1_000...100_000_000).contains(self.events) else { throw ValidationError("--events: 1000…100000000") }
        guard (1...100).contains(self.repeats) else { throw ValidationError("--repeats: 1…100") }
        guard self.seconds > 0, self.seconds <= 3600 else {
            throw ValidationError("--seconds: more than 0, at most 3600")
        }
    }

    func run() async throws {
        if self.standby {
            try await self.runOnStandby()
            return
        }
        let cluster = try self.clusterOptions.cluster()
        let database = try await BenchDatabase.make(in: cluster)
        let connection = try await Connection.connect(database.conninfo)
        let fillStart = ContinuousClock.now
        try await Self.fill(connection, events: self.events)
        say(
            String(
                format: "filled %d events and their sessions in %.1f s",
                self.events,
                (ContinuousClock.now - fillStart).inSeconds
            )
        )
        let now = Timestamp.now()
        let cases = Self.cases
        say("report                          roll-ups ms   plain scan ms   speed-up   goal")
        for entry in cases {
            let query = try ReportQuery(
                kind: entry.kind,
                since: now.adding(seconds: -entry.days * 86_400),
                until: now,
                dimensions: entry.by
            )
            let report = try await self.median { _ = try await query.run(on: connection) }
            let scan = try await self.median { try await connection.query(Self.plainScan(query)) }
            let goal = entry.goal.map {
                report < $0 ? "met (< \(Int($0 * 1000)) ms)" : "NOT met (< \(Int($0 * 1000)) ms)"
            }
            say(
                entry.name.padding(toLength: 32, withPad: " ", startingAt: 0)
                    + String(format: "%11.1f   %13.1f   %7.0fx   ", report * 1000, scan * 1000, scan / report)
                    + (goal ?? "-")
            )
        }
    }

    /// The reports measured: name, kind, days back from now, grouping, goal in seconds.
    static let cases: [(name: String, kind: Report.Kind, days: Int64, by: [Report.Dimension], goal: Double?)] = [
        ("signins, 30 days by provider", .signins, 30, [.provider], 0.100),
        ("signins, 365 days by day", .signins, 365, [.day], 0.300),
        ("failures, 30 days by reason", .failures, 30, [.reason], nil),
        ("sessions, 30 days by provider", .sessions, 30, [.provider], nil),
        ("revocations, 365 days by day", .revocations, 365, [.day], nil),
    ]

    /// The median of `repeats` runs of `body`, in seconds.
    private func median(_ body: () async throws -> Void) async throws -> Double {
        var times: [Double] = []
        for _ in 0..<self.repeats {
            let start = ContinuousClock.now
            try await body()
            times.append((ContinuousClock.now - start).inSeconds)
        }
        return times.sorted()[times.count / 2]
    }

    /// The same numbers as the report, by a plain scan of the rows they count.
    static func plainScan(_ query: ReportQuery) -> SQLQuery {
        let day = query.dimensions.contains(.day)
        switch query.kind {
        case .signins, .failures:
            let group =
                day ? "(occurred_at AT TIME ZONE 'UTC')::date" : (query.kind == .failures ? "reason" : "provider")
            return """
                SELECT \(unescaped: group), count(*) FILTER (WHERE type = 'signin.succeeded'),
                       count(*) FILTER (WHERE type = 'signin.failed')
                FROM authlog.event_records
                WHERE type IN ('signin.succeeded', 'signin.failed')
                  AND occurred_at >= \(query.since)::timestamptz AND occurred_at < \(query.until)::timestamptz
                GROUP BY 1
                """
        case .sessions, .revocations:
            let group = day ? "(ended_at AT TIME ZONE 'UTC')::date" : "provider"
            return """
                SELECT \(unescaped: group),
                       count(*) FILTER (WHERE started_at >= \(query.since)::timestamptz),
                       count(*) FILTER (WHERE ended_at >= \(query.since)::timestamptz AND ended_at < \(query.until)::timestamptz
                                        AND state = 'revoked'),
                       count(*) FILTER (WHERE ended_at IS NULL OR ended_at >= \(query.until)::timestamptz)
                FROM authlog.sessions
                WHERE started_at < \(query.until)::timestamptz
                GROUP BY 1
                """
        case .alerts:
            let group = day ? "(occurred_at AT TIME ZONE 'UTC')::date" : "reason"
            return """
                SELECT \(unescaped: group), count(*)
                FROM authlog.event_records
                WHERE type = 'signin.flagged'
                  AND occurred_at >= \(query.since)::timestamptz AND occurred_at < \(query.until)::timestamptz
                GROUP BY 1
                """
        }
    }

    /// `events` events over the last 365 days, in statements of a million rows, and a session for each
    /// successful sign-in, some of them ended already; then the roll-ups are counted again from these rows
    /// (rows inserted with SQL are not counted: only the writers' statements count as they write).
    static func fill(_ connection: Connection, events: Int) async throws {
        let chunk = 1_000_000
        for start in stride(from: 0, to: events, by: chunk) {
            let first = start + 1
            let last = min(start + chunk, events)
            try await connection.execute(
                SQLQuery(
                    unsafeSQL: """
                        WITH inserted AS (
                        INSERT INTO authlog.event_records (event_id, stream, stream_version, type, occurred_at,
                            recorded_at, outcome, reason, provider, user_id, session_id, client_id, ip, user_agent,
                            request_id, data, schema_version, digest, log_month)
                        SELECT gen_random_uuid(), 'bench-' || (n % 1000), n,
                               CASE WHEN n % 10 < 3 THEN 'signin.succeeded' WHEN n % 10 = 3 THEN 'signin.failed'
                                    ELSE 'token.refreshed' END,
                               t, t,
                               CASE WHEN n % 10 = 3 THEN 'failure' ELSE 'success' END,
                               CASE WHEN n % 10 = 3 THEN (ARRAY['expired', 'invalid_signature', 'audience_mismatch',
                                    'nonce_replayed', 'unknown_kid'])[1 + (n / 10) % 5] END,
                               (ARRAY['apple', 'github', 'gitlab', 'google', 'kakao', 'firebase'])[1 + (n / 7) % 6],
                               gen_random_uuid(), gen_random_uuid(),
                               (ARRAY['com.example.ios', 'com.example.web', 'com.example.android'])[1 + (n / 11) % 3],
                               '203.0.113.7', 'ExampleApp/1.0', 'req-' || n, '{}', 1, sha256(n::text::bytea),
                               (SELECT month FROM authlog.log_epoch)
                        FROM generate_series(\(first), \(last)) AS n,
                             LATERAL (SELECT now() - (n::double precision / \(events)) * interval '365 days' AS t) AS at
                        RETURNING session_id, user_id, provider, client_id, occurred_at, stream_version, type)
                        INSERT INTO authlog.sessions (session_id, user_id, provider, client_id, started_at,
                            last_seen_at, state, ended_at, end_reason, kind, authenticated_at)
                        SELECT session_id, user_id, provider, client_id, occurred_at, occurred_at,
                               (ARRAY['active', 'logged_out', 'expired', 'revoked'])[1 + stream_version % 4],
                               CASE WHEN stream_version % 4 > 0 THEN occurred_at + interval '2 hours' END,
                               (ARRAY[NULL, 'logout', 'idle', 'admin'])[1 + stream_version % 4],
                               'remember_me', occurred_at
                        FROM inserted
                        WHERE type = 'signin.succeeded'
                        """
                )
            )
            say("  \(last) events")
        }
        try await connection.execute("SELECT authlog.recount_reports(); ANALYZE")
    }
}
