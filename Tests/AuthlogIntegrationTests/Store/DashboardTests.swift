import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

/// deploy/grafana-dashboard.json over the views of schema `dashboard` (migrations 3 and 10): every panel's
/// query runs as a member of authlog_reader, with Grafana's macros expanded, and answers the columns its
/// panel shows; every view has a panel; the alert views fire on what docs/dashboards.md says and not on less.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct DashboardTests {
    /// The columns each panel's query answers, by panel title (one list per target, in order). A panel that
    /// is not here, or an entry without a panel, fails the test: change both together.
    static let expectedColumns: [String: [[String]]] = [
        "Open alerts": [["failed_signin_bursts", "refresh_token_reuses", "revocation_spikes"]],
        "Failed sign-in bursts (last 15 minutes, 10 or more per IP and provider)": [
            ["provider", "ip", "failures", "first_at", "last_at"]
        ],
        "Refresh token reuse (last 24 hours)": [["occurred_at", "provider", "user_id", "session_id", "ip"]],
        "Revocation spikes (last 24 hours)": [["hour", "revocations", "trailing_average"]],
        "Sign-ins per hour by outcome": [["time", "metric", "value"]],
        "Sign-ins per day by provider and outcome": [["time", "metric", "value"]],
        "Sign-ins by provider (all time)": [["provider", "succeeded", "failed", "first_day", "last_day"]],
        "Failed sign-ins by reason": [["reason", "failures"]],
        "Active sessions": [["active_sessions"]],
        "Sessions per day": [
            [
                "time", "started", "ended_logout", "ended_expiry", "ended_revocation", "ended_reuse",
                "ended_deletion",
            ]
        ],
        "Revocations per day by kind": [["time", "metric", "value"]],
        "Revocations by source": [["source", "revocations"]],
        "Refused requests per hour by reason": [["time", "metric", "value"]],
        "Sign-in alerts per hour by judgement and decision": [["time", "metric", "value"]],
    ]

    /// The relations outside schema `dashboard` that authlog_reader may read all the same: migration 8
    /// granted it `authlog.log_retention` (what retention dropped, no personal data).
    static let readableOutsideDashboard: Set<String> = ["authlog.log_retention"]

    @Test func everyPanelQueryRunsAsTheReaderAndAnswersThePanelsColumns() async throws {
        let database = try await Self.databaseWithTraffic()
        let reader = try await Connection.connect(
            database.conninfo(asUser: Self.loginRole(in: "authlog_reader", on: database))
        )
        let panels = try GrafanaDashboard.load().queryPanels
        #expect(Set(panels.map(\.title)) == Set(Self.expectedColumns.keys), "one expectation per panel")
        #expect(panels.count == Self.expectedColumns.count, "panel titles are unique")
        let macros = GrafanaMacros(from: Timestamp.now().adding(seconds: -30 * 86_400), to: .now())
        for panel in panels {
            let expected = try #require(Self.expectedColumns[panel.title], "no expectation for \(panel.title)")
            let targets = panel.targets ?? []
            #expect(targets.count == expected.count, "\(panel.title): one column list per target")
            for (target, columns) in zip(targets, expected) {
                #expect(target.datasource?.uid ?? panel.datasource?.uid == "${DS_AUTHLOG}", "\(panel.title)")
                let sql = try macros.expand(try #require(target.rawSql, "\(panel.title) has no rawSql"))
                let result: QueryResult
                do {
                    result = try await reader.query(SQLQuery(unsafeSQL: sql))
                } catch {
                    Issue.record("\(panel.title): \(error)\n\(sql)")
                    continue
                }
                #expect(result.columns == columns, "\(panel.title)")
                #expect(!result.rows.isEmpty, "\(panel.title) shows nothing for data that it should show")
                if target.format == "time_series" || panel.type == "timeseries" {
                    try Self.checkTimeSeries(result, panel: panel.title)
                }
            }
        }
    }

    @Test func everyDashboardViewHasAPanel() async throws {
        let database = try await TestDatabase.make()
        let views = try await database.connect().query(
            "SELECT viewname FROM pg_views WHERE schemaname = 'dashboard' ORDER BY viewname"
        )
        let names = try views.rows.map { try $0.decode(String.self, at: 0) }
        #expect(names.count >= 11)
        let queries = try GrafanaDashboard.load().queryPanels.flatMap { $0.targets ?? [] }.compactMap(\.rawSql)
        for name in names {
            let reference = try Regex("\\bdashboard\\.\(name)\\b")
            #expect(queries.contains { $0.contains(reference) }, "no panel reads dashboard.\(name)")
        }
    }

    @Test func failedSigninBurstsNeedTenFromOneAddressWithinFifteenMinutes() async throws {
        let database = try await Self.databaseWithTraffic()
        let reader = try await Connection.connect(
            database.conninfo(asUser: Self.loginRole(in: "authlog_reader", on: database))
        )
        let bursts = try await reader.query(
            "SELECT provider, host(ip), failures, first_at <= last_at FROM dashboard.alert_failed_signin_bursts ORDER BY 2"
        )
        let rows = try bursts.rows.map {
            [try $0.decode(String.self, at: 0), try $0.decode(String.self, at: 1), try $0.decode(String.self, at: 2)]
        }
        #expect(rows == [["apple", "198.51.100.10", "10"], ["google", "198.51.100.7", "12"]])
        #expect(try bursts.rows.allSatisfy { try $0.decode(String.self, at: 3) == "t" })
    }

    /// Refused requests count the requests their events account for, not the events.
    @Test func refusedRequestsCountEveryRequest() async throws {
        let database = try await Self.databaseWithTraffic(background: false)
        let reader = try await Connection.connect(
            database.conninfo(asUser: Self.loginRole(in: "authlog_reader", on: database))
        )
        let refused = try await reader.query(
            "SELECT reason, sum(requests)::bigint FROM dashboard.refused_requests_hourly GROUP BY reason"
        )
        #expect(refused.rows.count == 1)
        #expect(try refused.first?.decode(String.self, at: 0) == "rate_limited:signin")
        #expect(try refused.first?.decode(Int64.self, at: 1) == 5_000)
    }

    @Test func refreshReuseListsTheLastDay() async throws {
        let database = try await Self.databaseWithTraffic(background: false)
        let reader = try await Connection.connect(
            database.conninfo(asUser: Self.loginRole(in: "authlog_reader", on: database))
        )
        let reuse = try await reader.query(
            "SELECT session_id::text, provider, host(ip) FROM dashboard.alert_refresh_reuse"
        )
        #expect(reuse.rows.count == 1)
        #expect(try reuse.first?.decode(String.self, at: 0) == Self.recentReuseSession.lowercased)
        #expect(try reuse.first?.decode(String.self, at: 1) == "github")
        #expect(try reuse.first?.decode(String.self, at: 2) == "192.0.2.44")
    }

    @Test func revocationSpikesNeedTwentyAndThreeTimesTheTrailingAverage() async throws {
        let database = try await Self.databaseWithTraffic()
        let reader = try await Connection.connect(
            database.conninfo(asUser: Self.loginRole(in: "authlog_reader", on: database))
        )
        let spikes = try await reader.query("SELECT hour, revocations FROM dashboard.alert_revocation_spikes")
        #expect(spikes.rows.count == 1, "the hour with 25 revocations; the one with 19 is no spike")
        #expect(try spikes.first?.decode(Int64.self, at: 1) == 25)
        let owner = try await database.connect()
        let hour = try await owner.query(
            "SELECT date_trunc('hour', max(ended_at), 'UTC')::text FROM authlog.sessions WHERE end_reason = 'admin'"
        )
        #expect(try spikes.first?.decode(Timestamp.self, at: 0) == hour.first?.decode(Timestamp.self, at: 0))

        // 25 more revocations in each of the 168 hours before: 25 is no longer 3 times the average.
        try await owner.execute(
            """
            INSERT INTO authlog.report_pending (hour, metric, provider, client_id, detail, n)
            SELECT h, 'session.ended', 'apple', '', 'admin', 25
            FROM (SELECT date_trunc('hour', max(ended_at), 'UTC') AS spike FROM authlog.sessions
                  WHERE end_reason = 'admin') s,
                 generate_series(s.spike - interval '168 hours', s.spike - interval '1 hour', interval '1 hour') AS h
            """
        )
        #expect(try await reader.query("SELECT * FROM dashboard.alert_revocation_spikes").rows.isEmpty)
    }

    /// The counting views add the pending counts to the folded ones, each once, before and after the fold;
    /// sessions_daily's columns add up to the sessions table.
    @Test func countingViewsReadFoldedAndPendingRollups() async throws {
        let database = try await Self.databaseWithTraffic()
        let owner = try await database.connect()
        try await owner.execute(
            """
            INSERT INTO authlog.report_pending (hour, metric, provider, client_id, detail, n)
            VALUES (date_trunc('hour', now(), 'UTC') - interval '3 days', 'signin.failed', 'dashtest', '', 'pending_only', 4),
                   (date_trunc('hour', now(), 'UTC') - interval '3 days', 'signin.failed', 'dashtest', '', 'pending_only', 3)
            """
        )
        let reader = try await Connection.connect(
            database.conninfo(asUser: Self.loginRole(in: "authlog_reader", on: database))
        )
        for round in ["pending", "folded"] {
            let hourly = try await reader.query(
                "SELECT signins FROM dashboard.signins_hourly WHERE provider = 'dashtest' AND reason = 'pending_only'"
            )
            #expect(try hourly.rows.map { try $0.decode(Int64.self, at: 0) } == [7], "\(round)")
            let daily = try await reader.query(
                "SELECT failures FROM dashboard.failed_signins_by_reason WHERE provider = 'dashtest'"
            )
            #expect(try daily.rows.map { try $0.decode(Int64.self, at: 0) } == [7], "\(round)")
            try await owner.execute("SELECT authlog.fold_report_counts()")
        }

        let sessions = try await reader.query(
            """
            SELECT sum(started), sum(ended_logout + ended_expiry + ended_revocation + ended_reuse + ended_deletion),
                   sum(ended_reuse), sum(ended_revocation)
            FROM dashboard.sessions_daily
            """
        )
        let stored = try await owner.query(
            """
            SELECT count(*), count(*) FILTER (WHERE state <> 'active'),
                   count(*) FILTER (WHERE state = 'revoked' AND end_reason = 'reuse'),
                   count(*) FILTER (WHERE state = 'revoked'
                                      AND coalesce(end_reason, '') NOT IN ('reuse', 'account_deleted'))
            FROM authlog.sessions
            """
        )
        let counted = try (0..<4).map { try sessions.first?.decode(Int64.self, at: $0) }
        let expected = try (0..<4).map { try stored.first?.decode(Int64.self, at: $0) }
        #expect(counted == expected, "started, ended, ended by reuse, ended by another revocation")
        #expect((counted[0] ?? 0) > 50)
        let bySource = try await reader.query(
            "SELECT sum(revocations) FROM dashboard.revocations_by_source WHERE source = 'admin'"
        )
        #expect((try bySource.first?.decode(Int64.self, at: 0) ?? 0) >= 44)
        let byKind = try await reader.query(
            """
            SELECT (SELECT sum(revocations) FROM dashboard.revocations_daily),
                   (SELECT sum(revocations) FROM dashboard.revocations_by_source)
            """
        )
        #expect(try byKind.first?.decode(Int64.self, at: 0) == byKind.first?.decode(Int64.self, at: 1))
    }

    @Test func theReaderReadsTheViewsButNothingOutsideDashboard() async throws {
        let database = try await TestDatabase.make()
        let role = try await Self.loginRole(in: "authlog_reader", on: database)
        let reader = try await Connection.connect(database.conninfo(asUser: role))
        for table in [
            "authlog.report_rollups", "authlog.report_counts", "authlog.report_pending", "authlog.event_records",
        ] {
            let error = await #expect(throws: StoreError.self) {
                try await reader.query(SQLQuery(unsafeSQL: "SELECT * FROM \(table)"))
            }
            #expect(error?.sqlState == "42501", "\(table)")
        }
        let readable = try await reader.query(
            """
            SELECT n.nspname || '.' || c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname NOT IN ('dashboard', 'pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'
              AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND has_table_privilege(c.oid, 'SELECT')
            """
        )
        let outside = Set(try readable.rows.map { try $0.decode(String.self, at: 0) })
        #expect(outside.isSubset(of: Self.readableOutsideDashboard), "authlog_reader reads \(outside)")
        let views = try await reader.query(
            """
            SELECT count(*), count(*) FILTER (WHERE NOT has_table_privilege(c.oid, 'SELECT'))
            FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = 'dashboard' AND c.relkind = 'v'
            """
        )
        #expect(try views.first?.decode(Int64.self, at: 0) ?? 0 >= 11)
        #expect(try views.first?.decode(Int64.self, at: 1) == 0, "authlog_reader reads every dashboard view")
    }
}

// MARK: - Test data

extension DashboardTests {
    static let recentReuseSession = UUID(version: 4, bytes: Array(repeating: 0x44, count: 16))

    /// A login role that is a member of `group`.
    static func loginRole(in group: String, on database: TestDatabase) async throws -> String {
        let name = "login_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        try await database.connect().execute(SQLQuery(unsafeSQL: "CREATE ROLE \(name) LOGIN IN ROLE \(group)"))
        return String(name)
    }

    /// A migrated database with a week of generated traffic that ends 26 hours ago (sealed, so its counts
    /// are folded), then what the alert views look for, appended through the store:
    /// - failed sign-ins within the last 15 minutes: 12 from 198.51.100.7 and 9 from 198.51.100.8 (google),
    ///   10 from 198.51.100.10 (apple); 12 from 198.51.100.9 20–31 minutes ago;
    /// - a reuse of a refresh token 2 hours ago (github, 192.0.2.44) and one 30 hours ago;
    /// - 25 sessions revoked 5 minutes ago and 19 five hours ago (admin).
    static func databaseWithTraffic(background: Bool = true) async throws -> TestDatabase {
        let database = try await TestDatabase.make()
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo, maximumConnections: 4))
        let now = Timestamp.now()
        if background {
            var traffic = TrafficGenerator(seed: 12, start: now.adding(seconds: -8 * 86_400))
            var events: [EventEnvelope] = []
            let end = now.adding(seconds: -26 * 3600).microsecondsSinceEpoch
            while events.count < 800 {
                let action = traffic.nextAction()
                guard let first = action.first, first.occurredAt.microsecondsSinceEpoch < end else { break }
                events += action
            }
            try await store.append(AppendCommand(events: events))
            try await store.sealPending()
        }
        func minutesAgo(_ minutes: Int) -> Timestamp { now.adding(seconds: Int64(-60 * minutes)) }
        var recent: [EventEnvelope] = []
        for (provider, address, count, start) in [
            ("google", "198.51.100.7", 12, 1), ("google", "198.51.100.8", 9, 1), ("apple", "198.51.100.10", 10, 2),
            ("google", "198.51.100.9", 12, 20),
        ] {
            for minute in start..<(start + count) {
                recent.append(try Self.failedSignin(provider: provider, address: address, at: minutesAgo(minute)))
            }
        }
        recent += try Self.reuse(session: Self.recentReuseSession, provider: "github", at: minutesAgo(120))
        recent += try Self.reuse(session: UUID.version7(), provider: "apple", at: minutesAgo(30 * 60))
        for (count, minutes) in [(25, 5), (19, 5 * 60)] {
            for _ in 0..<count {
                recent += try Self.revokedSession(startedAt: minutesAgo(minutes + 30), revokedAt: minutesAgo(minutes))
            }
        }
        // A rate-limited flood of sign-ins: a window's first refusal, then its summary of the rest.
        recent.append(try RefusalFixtures.rateLimited(route: "signin", count: 1, at: minutesAgo(90)))
        recent.append(try RefusalFixtures.rateLimited(route: "signin", count: 4_999, at: minutesAgo(89)))
        // A sign-in judged unusual: a new country and impossible travel, recorded.
        let traveller = UUID.version7()
        recent.append(
            try EventEnvelope(
                SigninFlagged(
                    judgedEventID: .version7(),
                    judgements: [SigninJudgement(kind: .newCountry), SigninJudgement(kind: .impossibleTravel)],
                    decision: .recorded
                ),
                stream: StreamName(category: "user", id: traveller.lowercased),
                occurredAt: minutesAgo(45),
                reason: "impossible_travel",
                provider: "apple",
                userID: traveller,
                clientID: "com.example.app"
            )
        )
        try await store.append(AppendCommand(events: recent))
        return database
    }

    private static func failedSignin(provider: String, address: String, at time: Timestamp) throws -> EventEnvelope {
        try EventEnvelope(
            SigninFailed(reason: "invalid_signature", method: "id_token"),
            stream: StreamName(category: "signin", id: provider),
            occurredAt: time,
            outcome: .failure,
            reason: "invalid_signature",
            provider: provider,
            clientID: "com.example.app",
            ip: IPAddress(address)
        )
    }

    private static func started(session: UUID, user: UUID, provider: String, at time: Timestamp) throws -> EventEnvelope
    {
        try EventEnvelope(
            SigninSucceeded(method: "id_token", subjectHash: String(repeating: "ab", count: 32), isNewUser: false),
            stream: StreamName(category: "session", id: session.lowercased),
            occurredAt: time,
            provider: provider,
            userID: user,
            sessionID: session,
            clientID: "com.example.app"
        )
    }

    private static func reuse(session: UUID, provider: String, at time: Timestamp) throws -> [EventEnvelope] {
        let user = UUID.version7()
        let reused = try EventEnvelope(
            TokenReuseDetected(tokenID: .version7(), familyID: .version7()),
            stream: StreamName(category: "session", id: session.lowercased),
            occurredAt: time,
            outcome: .failure,
            reason: "refresh_token_reused",
            provider: provider,
            userID: user,
            sessionID: session,
            clientID: "com.example.app",
            ip: IPAddress("192.0.2.44")
        )
        return [
            try Self.started(session: session, user: user, provider: provider, at: time.adding(seconds: -3600)), reused,
        ]
    }

    private static func revokedSession(startedAt: Timestamp, revokedAt: Timestamp) throws -> [EventEnvelope] {
        let session = UUID.version7()
        let user = UUID.version7()
        let revoked = try EventEnvelope(
            SessionRevoked(reason: .admin, actor: "admin:dashboard-test"),
            stream: StreamName(category: "session", id: session.lowercased),
            occurredAt: revokedAt,
            reason: "admin",
            provider: "apple",
            userID: user,
            sessionID: session
        )
        return [try Self.started(session: session, user: user, provider: "apple", at: startedAt), revoked]
    }

    /// A time series answers a `time` cell that is a timestamp on every row, an optional non-NULL `metric`
    /// label, and numbers in every other column.
    static func checkTimeSeries(_ result: QueryResult, panel: String) throws {
        #expect(result.columns.first == "time", "\(panel): a time series starts with its time column")
        for row in result.rows {
            for (index, column) in result.columns.enumerated() {
                let cell = row.cells[index]
                switch column {
                case "time": #expect(cell.flatMap(Timestamp.init(iso8601:)) != nil, "\(panel): time \(cell ?? "NULL")")
                case "metric": #expect(cell != nil, "\(panel): a NULL metric label")
                default: #expect(cell.flatMap(Double.init) != nil, "\(panel): \(column) = \(cell ?? "NULL")")
                }
            }
        }
    }
}

// MARK: - The dashboard file and Grafana's macros

/// The parts of a Grafana dashboard JSON model the tests read.
struct GrafanaDashboard: Decodable {
    struct DataSource: Decodable {
        var type: String?
        var uid: String?
    }

    struct Target: Decodable {
        var format: String?
        var rawSql: String?
        var datasource: DataSource?
    }

    struct Panel: Decodable {
        var type: String
        var title: String
        var datasource: DataSource?
        var targets: [Target]?
        var panels: [Panel]?
    }

    var panels: [Panel]

    /// deploy/grafana-dashboard.json.
    static func load() throws -> GrafanaDashboard {
        let url = RepositoryFiles.url("deploy/grafana-dashboard.json")
        return try JSONDecoder().decode(GrafanaDashboard.self, from: Data(contentsOf: url))
    }

    /// Every panel but the rows, those inside collapsed rows included.
    var queryPanels: [Panel] {
        func flatten(_ panels: [Panel]) -> [Panel] {
            panels.flatMap { panel in (panel.type == "row" ? [] : [panel]) + flatten(panel.panels ?? []) }
        }
        return flatten(self.panels)
    }
}

/// Grafana's PostgreSQL macros and interval variables, expanded as Grafana expands them for a time range.
struct GrafanaMacros {
    struct UnknownMacro: Error, CustomStringConvertible {
        var description: String
    }

    let from: Timestamp
    let to: Timestamp
    /// What `$__interval` stands for, in seconds.
    var intervalSeconds: Int64 = 3600

    private var fromLiteral: String { "'\(Self.utc(self.from))'" }
    private var toLiteral: String { "'\(Self.utc(self.to))'" }

    /// `sql` with every macro replaced.
    /// - Throws: ``UnknownMacro`` for a macro or variable not known here, or a malformed one.
    func expand(_ sql: String) throws -> String {
        var text = sql.replacingOccurrences(of: "$__interval_ms", with: String(self.intervalSeconds * 1000))
            .replacingOccurrences(of: "$__interval", with: "\(self.intervalSeconds)s")
        let from = self.from.microsecondsSinceEpoch / 1_000_000
        let to = self.to.microsecondsSinceEpoch / 1_000_000
        let macros: [(String, ([String]) throws -> String)] = [
            ("$__timeFilter", { "\(try Self.one($0)) BETWEEN \(self.fromLiteral) AND \(self.toLiteral)" }),
            ("$__timeFrom", { _ in self.fromLiteral }),
            ("$__timeTo", { _ in self.toLiteral }),
            ("$__timeGroupAlias", { "\(try Self.timeGroup($0)) AS \"time\"" }),
            ("$__timeGroup", { try Self.timeGroup($0) }),
            ("$__timeEpoch", { "extract(epoch from \(try Self.one($0))) AS \"time\"" }),
            ("$__time", { "\(try Self.one($0)) AS \"time\"" }),
            ("$__unixEpochFilter", { "\(try Self.one($0)) >= \(from) AND \(try Self.one($0)) <= \(to)" }),
            ("$__unixEpochFrom", { _ in String(from) }),
            ("$__unixEpochTo", { _ in String(to) }),
        ]
        for (name, replacement) in macros {
            text = try Self.replaceCalls(of: name, in: text, with: replacement)
        }
        if let unknown = text.firstMatch(of: #/\$(__)?[A-Za-z{][A-Za-z0-9_}]*/#) {
            throw UnknownMacro(description: "unknown macro or variable \(unknown.output.0) in \(sql)")
        }
        return text
    }

    /// Replaces each `name(args)` (arguments split at top-level commas, parentheses nested) in `text`.
    private static func replaceCalls(
        of name: String,
        in text: String,
        with replacement: ([String]) throws -> String
    ) throws -> String {
        var output = ""
        var rest = Substring(text)
        while let range = rest.range(of: name + "(") {
            output += rest[..<range.lowerBound]
            var depth = 1
            var arguments: [String] = []
            var current = ""
            var index = range.upperBound
            while depth > 0 {
                guard index < rest.endIndex else { throw UnknownMacro(description: "unclosed \(name)( in \(text)") }
                let character = rest[index]
                if character == "(" { depth += 1 }
                if character == ")" { depth -= 1 }
                if depth == 1 && character == "," {
                    arguments.append(current)
                    current = ""
                } else if depth > 0 {
                    current.append(character)
                }
                index = rest.index(after: index)
            }
            arguments.append(current)
            let trimmed = arguments.map { $0.trimmingCharacters(in: .whitespaces) }
            output += try replacement(trimmed == [""] ? [] : trimmed)
            rest = rest[index...]
        }
        return output + rest
    }

    private static func one(_ arguments: [String]) throws -> String {
        guard arguments.count == 1 else { throw UnknownMacro(description: "expected one argument: \(arguments)") }
        return arguments[0]
    }

    /// `$__timeGroup(column, '5m')`: the start of the column's interval, in epoch seconds.
    private static func timeGroup(_ arguments: [String]) throws -> String {
        guard arguments.count >= 2 else { throw UnknownMacro(description: "timeGroup needs an interval") }
        let interval = arguments[1].trimmingCharacters(in: CharacterSet(charactersIn: "'\""))
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        guard let unit = interval.last.flatMap({ units[$0] }), let count = Int64(interval.dropLast()) else {
            throw UnknownMacro(description: "interval \(interval)")
        }
        return "floor(extract(epoch from \(arguments[0]))/\(count * unit))*\(count * unit)"
    }

    /// `YYYY-MM-DDTHH:MM:SSZ`, as Grafana writes a range's ends.
    private static func utc(_ time: Timestamp) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: Double(time.microsecondsSinceEpoch) / 1_000_000))
    }
}

/// The macro expansion itself, without a database.
struct GrafanaMacroTests {
    @Test func macrosExpandAsGrafanaExpandsThem() throws {
        let macros = GrafanaMacros(
            from: try #require(Timestamp(iso8601: "2026-10-01T00:00:00Z")),
            to: try #require(Timestamp(iso8601: "2026-10-31T00:00:00Z"))
        )
        #expect(
            try macros.expand("SELECT 1 WHERE $__timeFilter(day::timestamp) AND x > $__timeFrom() AND y < $__timeTo()")
                == "SELECT 1 WHERE day::timestamp BETWEEN '2026-10-01T00:00:00Z' AND '2026-10-31T00:00:00Z' "
                + "AND x > '2026-10-01T00:00:00Z' AND y < '2026-10-31T00:00:00Z'"
        )
        #expect(
            try macros.expand("SELECT $__timeGroupAlias(date_trunc('hour', h), $__interval), $__interval_ms")
                == "SELECT floor(extract(epoch from date_trunc('hour', h))/3600)*3600 AS \"time\", 3600000"
        )
        #expect(throws: GrafanaMacros.UnknownMacro.self) { try macros.expand("SELECT $__notAMacro(x)") }
        #expect(throws: GrafanaMacros.UnknownMacro.self) { try macros.expand("SELECT * FROM t WHERE p = '$provider'") }
        #expect(throws: GrafanaMacros.UnknownMacro.self) { try macros.expand("SELECT $__timeFilter(x") }
    }
}
