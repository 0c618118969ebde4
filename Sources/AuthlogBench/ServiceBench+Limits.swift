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

    /// Sign-ins from one address against the default limits for `duration`: the refused ones, and the events
    /// that recorded them once every window is closed.
    private func measureFlood(database: BenchDatabase, for duration: Duration) async throws {
        let defaults = try Self.components(database: database, limits: .members([:]))
        let server = try await ServiceRunner.start(router: try buildRouter(components: defaults).router)
        let client = HTTPTestClient(baseURL: server.baseURL)
        let ticket = Ticket()
        let flood = try await LoadRun.run(connections: self.connections, for: duration) { _, _ in
            let answer = try await client.post(
                "/v1/signin/dev",
                .members(["subject": .string("flood-\(ticket.take())")])
            )
            return answer.status == 429
        }
        await server.stop()
        try await defaults.limiter.recorder.flush(into: defaults.store, everything: true)
        let totals = defaults.limiter.recorder.totals
        let stored = try await defaults.store.pool.withConnection { connection in
            try await connection.query("SELECT count(*) FROM authlog.events WHERE type = 'ratelimit.exceeded'")
                .rows.first?.decode(Int64.self, at: 0) ?? 0
        }
        let perThousand = totals.refused == 0 ? 0 : Double(totals.events) * 1000 / Double(totals.refused)
        say(
            "flood of sign-ins from one address, default limits: \(flood.successes) refused with 429, "
                + "\(flood.failures) admitted; \(totals.events) events recorded them (\(stored) ratelimit.exceeded stored)"
        )
        say(
            String(
                format: "goal: events per 1,000 refused requests <= 1: %.3f %@",
                perThousand,
                perThousand <= 1 ? "met" : "NOT met"
            )
        )
    }

    /// A server's components over `database` with the `rate_limits` section `limits`.
    static func components(database: BenchDatabase, limits: JSONValue) throws -> ServerComponents {
        let document: JSONValue = .members(["development": .bool(true), "rate_limits": limits])
        return try ServerComponents(
            configuration: try document.decode(ServerConfiguration.self),
            pool: ConnectionPool(conninfo: database.conninfo, maximumConnections: 16),
            accessTokenKey: try PrivateKey.generate(for: .es256),
            fetcher: AsyncHTTPFetcher()
        )
    }
}
