import AuthlogCore
import AuthlogCrypto
import AuthlogPostgres
import AuthlogProviders
import AuthlogServer
import AuthlogTesting
import Foundation

extension ServiceBench {
    /// Refreshes per second through a server whose rate limits are on (every bucket taken, admissions shared
    /// through the database every second) against one whose limits are off, on one database and the same
    /// connections, in the order off, on, on, off (goal: at least 0.95x); the limits are set high so that the
    /// cost of limiting is measured, not refusals. Then a flood of sign-ins from one address against the
    /// default limits: how many events the refusals wrote per 1,000 refused (goal: at most 1).
    func measureLimits(database: BenchDatabase, for duration: Duration) async throws {
        let wide: JSONValue = .members(["per_second": .number("1000000"), "burst": .number("1000000")])
        let groups = LimitedRoute.allCases.map { (name: $0.rawValue, value: wide) }
        let on = try Self.components(
            database: database,
            limits: .members([
                "per_address": .object(groups), "per_family": wide, "per_api_key": wide,
            ])
        )
        let off = try Self.components(database: database, limits: .members(["enabled": .bool(false)]))
        let onServer = try await ServiceRunner.start(router: try buildRouter(components: on).router)
        let offServer = try await ServiceRunner.start(router: try buildRouter(components: off).router)
        let sync = Task {
            while !Task.isCancelled {
                try? await on.limitSync.pass(pool: on.store.pool)
                try? await Task.sleep(for: .seconds(1))
            }
        }
        var limited: [LoadRun] = []
        var unlimited: [LoadRun] = []
        for limits in [false, true, true, false] {
            let client = HTTPTestClient(baseURL: limits ? onServer.baseURL : offServer.baseURL)
            let chains = try await TokenChains.signIn(workers: self.connections, through: [client])
            let run = try await LoadRun.run(connections: self.connections, for: duration) { worker, _ in
                try await chains.refresh(worker, through: client)
            }
            say("refreshes, rate limits \(limits ? "on (shared)" : "off"): \(run.summary)")
            if limits { limited.append(run) } else { unlimited.append(run) }
        }
        sync.cancel()
        await onServer.stop()
        await offServer.stop()
        let ratio = limited.map(\.rate).reduce(0, +) / unlimited.map(\.rate).reduce(0, +)
        say(
            String(
                format: "goal: refreshes with the rate limits on >= 0.95x off: %.0f/s against %.0f/s, %.2fx %@",
                limited.map(\.rate).reduce(0, +) / 2,
                unlimited.map(\.rate).reduce(0, +) / 2,
                ratio,
                ratio >= 0.95 ? "met" : "NOT met"
            )
        )
        try await self.measureFlood(database: database, for: duration)
    }

    /// Against the default limits: sign-ins of users on their own addresses alone, then the same while two
    /// hosts flood sign-ins over all the connections an address may hold (one as new subjects, one rotating
    /// through 10,000), then alone again; then 100,000 sign-ins from one address and 20,000 rotating through
    /// 10,000 subjects from another. Prints the users' p99 in both (goal: within 2x), what was refused, and the
    /// events the refusals wrote per 1,000 refused (goal: at most 1).
    private func measureFlood(database: BenchDatabase, for duration: Duration) async throws {
        let defaults = try Self.components(
            database: database,
            limits: .members([:]),
            extra: ["trusted_proxies": .array([.string("127.0.0.1")])]
        )
        let server = try await ServiceRunner.start(router: try buildRouter(components: defaults).router)
        let client = HTTPTestClient(baseURL: server.baseURL)
        // Users: each request from an address of its own range, a few requests per address.
        let users: @Sendable (Int, Int) async throws -> Bool = { worker, iteration in
            let address = "198.51.\(100 + worker).\(iteration % 250 + 1)"
            let answer = try await client.post(
                "/v1/signin/dev",
                .members(["subject": .string("user-\(worker)-\(iteration)")]),
                headers: [("X-Forwarded-For", address)]
            )
            return answer.status == 200
        }
        let postmaster = try await ProcessCPU.postmaster(of: try await Connection.connect(database.conninfo))
        let quietCPU = CPUSplit.start(postmaster: postmaster)
        let quiet = try await LoadRun.run(connections: 4, for: duration, request: users)
        say("users' sign-ins alone (4 connections, own addresses): \(quiet.summary)")
        say("CPU during it, cores: \(quietCPU.cores(over: quiet))")
        // The attackers are processes of their own (`authlog-bench flood`), as they are hosts of their own: their
        // clients' connection pools and event loops are not the users'. Two hosts, each with as many keep-alive
        // connections as one address may hold (1/16 of the slots): one signs in as new subjects, the other
        // rotates through 10,000; they send on every refusal, for as long as the users are measured.
        let perAddress = ConfigurationDefaults.maximumConnectionsPerAddress
        let warmUp = 2.0
        let floods = try (0..<2).map { _ in
            try FloodProcess.start(
                url: server.baseURL,
                connections: perAddress,
                seconds: warmUp + duration.inSeconds + 1
            )
        }
        // Let its connections open and its first refusals come before the users are measured.
        try await Task.sleep(for: .seconds(warmUp))
        let busyCPU = CPUSplit.start(postmaster: postmaster, floods: floods.map(\.pid))
        let busy = try await LoadRun.run(connections: 4, for: duration, request: users)
        say("users' sign-ins during the flood: \(busy.summary)")
        say("CPU during it, cores: \(busyCPU.cores(over: busy))")
        let during = try await FloodProcess.results(of: floods)
        say(
            String(
                format:
                    "the flood: %d sign-ins in %.1f s from 2 addresses over %d connections, %d answered 429 (%.0f/s)",
                during.sent,
                during.seconds,
                2 * perAddress,
                during.refused,
                Double(during.refused) / during.seconds
            )
        )
        // Alone again after the flood: the log grew meanwhile, so the baseline is the mean of before and after.
        let after = try await LoadRun.run(connections: 4, for: duration, request: users)
        say("users' sign-ins alone again, after the flood: \(after.summary)")
        // The issue's 100,000 from one address and 20,000 rotating through 10,000 subjects from another, sent
        // through the trusted proxy (which the per-address connection cap exempts) by 8 processes of 128
        // connections each, so that it lasts about two minutes although every refusal is held for a second.
        let large = try (0..<8).map { _ in
            try FloodProcess.start(url: server.baseURL, connections: 128, requests: 15_000, rotating: 2_500)
        }
        let count = try await FloodProcess.results(of: large)
        say(
            String(
                format: "then 120,000 sign-ins from 2 addresses (20,000 rotating through 10,000 subjects) over 1,024 "
                    + "connections: %d answered 429 in %.0f s",
                count.refused,
                count.seconds
            )
        )
        let refusedAnswers = during.refused + count.refused
        let metrics = String(decoding: try await client.send("GET", "/metrics").body, as: UTF8.self)
        await server.stop()
        try await defaults.limiter.recorder.flush(into: defaults.store, everything: true)
        let totals = defaults.limiter.recorder.totals
        let stored = try await defaults.store.pool.withConnection { connection in
            try await connection.query(
                """
                SELECT count(*), coalesce(sum((data->>'count')::int), 0) FROM authlog.event_records
                WHERE type = 'ratelimit.exceeded'
                """
            ).rows.first.map { (try $0.decode(Int64.self, at: 0), try $0.decode(Int64.self, at: 1)) } ?? (0, 0)
        }
        let limitedLine = metrics.split(separator: "\n").first {
            $0.hasPrefix("authlog_rate_limited_total{scope=\"address\",route=\"signin\"}")
        }
        say(
            "both floods: \(refusedAnswers) answered 429, \(totals.refused) counted; \(stored.0) ratelimit.exceeded "
                + "events stored, counting \(stored.1); /metrics: \(limitedLine ?? "-")"
        )
        let perThousand = totals.refused == 0 ? 0 : Double(totals.events) * 1000 / Double(totals.refused)
        say(
            String(
                format: "goal: events per 1,000 refused requests <= 1: %.3f %@",
                perThousand,
                perThousand <= 1 ? "met" : "NOT met"
            )
        )
        let alone = (quiet.p99 + after.p99) / 2
        let ratio = busy.p99 / alone
        say(
            String(
                format:
                    "goal: users' p99 during the flood <= 2x without (before and after): %.1f ms against %.1f ms, %.2fx %@",
                LoadRun.milliseconds(busy.p99),
                LoadRun.milliseconds(alone),
                ratio,
                ratio <= 2 ? "met" : "NOT met"
            )
        )
    }

    /// A server's components over `database` with the `rate_limits` section `limits`.
    static func components(
        database: BenchDatabase,
        limits: JSONValue,
        extra: [String: JSONValue] = [:]
    ) throws -> ServerComponents {
        var members: [String: JSONValue] = ["development": .bool(true), "rate_limits": limits]
        members.merge(extra) { _, given in given }
        let document = JSONValue.object(members.map { (name: $0.key, value: $0.value) })
        return try ServerComponents(
            configuration: try document.decode(ServerConfiguration.self),
            pool: ConnectionPool(conninfo: database.conninfo, maximumConnections: 16),
            accessTokenKey: try PrivateKey.generate(for: .es256),
            fetcher: AsyncHTTPFetcher()
        )
    }
}
