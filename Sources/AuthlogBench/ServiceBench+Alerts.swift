import AuthlogCore
import AuthlogCrypto
import AuthlogPlaces
import AuthlogPostgres
import AuthlogServer
import AuthlogTesting
import Foundation

extension ServiceBench {
    /// Sign-ins per second with sign-in alerts on (a device id and a place for each sign-in, real MaxMind DB
    /// files written by MaxMind's Perl writer, the history read and the place sealed) against alerts off, on two
    /// servers over one database, in the order off, on, on, off (so that a growing log weighs on both alike);
    /// goal: at least 0.95x. Each run starts from a database just vacuumed and analysed, after ten untimed
    /// sign-ins per connection that settle the prepared statements' plans again. Returning users (2,000,
    /// each signed in once on each server before the clock), each from its own address and device, one sign-in in
    /// `--away-every` (20) from the other city (judged: a new country and impossible travel, and the next one home
    /// impossible travel again).
    /// Then the lookup's own time per sign-in.
    func measureAlerts(database: BenchDatabase, apple: FakeIdentityProvider, for duration: Duration) async throws {
        guard let files = try PlaceFilesFixture.make() else {
            throw BenchFailure("the MaxMind DB writer (libmaxmind-db-writer-perl) is not installed")
        }
        defer { files.remove() }
        let on = try await Self.startServer(
            database: database,
            apple: apple,
            extra: [
                "trusted_proxies": .array([.string("127.0.0.1")]),
                "data_key": .string(Base64URL.encode(Array(repeating: 5, count: 32))),
                "places": .members(["city_database": .string(files.city), "asn_database": .string(files.asn)]),
            ]
        )
        let off = try await Self.startServer(
            database: database,
            apple: apple,
            extra: [
                "trusted_proxies": .array([.string("127.0.0.1")]),
                "data_key": .string(Base64URL.encode(Array(repeating: 5, count: 32))),
                "alerts": .members(["enabled": .bool(false)]),
            ]
        )
        let servers = [false: HTTPTestClient(baseURL: off.baseURL), true: HTTPTestClient(baseURL: on.baseURL)]
        let users = 2_000
        let perRun = Int(self.seconds * 3_000) + users + self.connections * Self.settlingSigninsPerConnection
        let tokens = try Self.appleTokens(apple: apple, count: users * 2 + perRun * 4)
        let ticket = Ticket()
        let awayEvery = self.awayEvery
        // The first 2 × 2,000 tokens warm the servers up, one per user each; the runs take the rest.
        // One sign-in with the next token, of its user (token `index` is Apple user `index % 2000`), from the
        // user's own address and device; every twentieth from Tokyo.
        @Sendable func signIn(_ client: HTTPTestClient, index: Int, iteration: Int) async throws -> Bool {
            guard index < tokens.count else { return false }
            let user = index % users
            let away = awayEvery > 0 && iteration % awayEvery == awayEvery - 1
            let address = away ? "126.0.\(user / 250).\(user % 250 + 1)" : "175.223.10.\(user % 250 + 1)"
            let device = Base64URL.encode(SHA256.hash(Array("bench-device-\(user)".utf8)))
            return try await client.post(
                "/v1/signin/apple",
                tokens[index],
                headers: [
                    ("User-Agent", "BenchApp/1.0 CFNetwork/1490 Darwin/23.2.0 (iPhone)"), ("X-Forwarded-For", address),
                    ("Authlog-Device-Id", device),
                ]
            ).status == 200
        }
        // `count` sign-ins from home on `client`, untimed.
        @Sendable func warm(_ client: HTTPTestClient, count: Int) async throws {
            let end = ticket.current + count
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<self.connections {
                    group.addTask {
                        while true {
                            let index = ticket.take()
                            guard index < end else { return }
                            guard try await signIn(client, index: index, iteration: 0) else {
                                throw BenchFailure("a warm-up sign-in failed")
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        // Every user signs in once on each server first: the measured sign-ins are returning users with a history.
        for client in [servers[false], servers[true]].compactMap({ $0 }) { try await warm(client, count: users) }
        var runs: [Bool: [LoadRun]] = [:]
        let postmaster = try await ProcessCPU.postmaster(of: try await Connection.connect(database.conninfo))
        let maintenance = try await Connection.connect(database.conninfo)
        for alerts in [false, true, true, false] {
            guard let client = servers[alerts] else { continue }
            // Autovacuum visits the database once a minute and then works for seconds (analysing the log's
            // partition alone took a second), landing on whichever 10-second run it falls in: that run's
            // PostgreSQL CPU per sign-in was up to 1.7 times the same server's other run. Each run starts from a
            // database just vacuumed and analysed instead, so the runs compare the servers, not autovacuum. And
            // just checkpointed: a checkpoint that fell inside one run made that run alone write every page it
            // touched first again in full to the WAL; now each run starts from a checkpoint and pays that alike.
            try await maintenance.execute("VACUUM ANALYZE")
            // ANALYZE makes every connection plan its prepared statements again, the first five executions each
            // with a plan of its own before PostgreSQL keeps the generic one: for the sign-in's identity and
            // history statement about a millisecond each: 30–56 µs per sign-in of a 10-second run (--statements),
            // where a server that re-plans after each autovacuum ANALYZE, minutes apart, pays in the order of a
            // microsecond. Ten sign-ins per connection, untimed, settle the plans first, for both servers alike.
            try await warm(client, count: self.connections * Self.settlingSigninsPerConnection)
            try await maintenance.execute("CHECKPOINT")
            if self.statements { try await StatementTimes.reset(on: maintenance) }
            let cpu = CPUSplit.start(postmaster: postmaster)
            let run = try await LoadRun.run(connections: self.connections, for: duration) { _, iteration in
                try await signIn(client, index: ticket.take(), iteration: iteration)
            }
            say(
                "sign-ins with alerts \(alerts ? "on (device id, places, history, sealed place)" : "off"): \(run.summary)"
            )
            say("  \(cpu.perRequest(of: run))")
            if self.statements {
                for line in try await StatementTimes.top(12, per: run.successes, on: maintenance) { say("    " + line) }
            }
            runs[alerts, default: []].append(run)
        }
        let rate = { (alerts: Bool) in (runs[alerts] ?? []).map(\.rate).reduce(0, +) / 2 }
        let ratio = rate(true) / rate(false)
        let refreshes = try await self.measureAlertRefreshes(servers, for: duration)
        await on.stop()
        await off.stop()
        say(
            String(
                format: "goal: sign-ins with alerts on >= 0.95x off: %.0f/s against %.0f/s, %.2fx %@",
                rate(true),
                rate(false),
                ratio,
                ratio >= 0.95 ? "met" : "NOT met"
            )
        )
        say(
            String(
                format: "refreshes with alerts on against off (no goal): %.0f/s against %.0f/s, %.2fx",
                refreshes.on,
                refreshes.off,
                refreshes.on / refreshes.off
            )
        )
        try Self.measureLookups(files)
    }

    /// The untimed sign-ins per connection before each run that settle the prepared statements' plans.
    static let settlingSigninsPerConnection = 10

    /// Refreshes per second with alerts on (each judged against its session's sign-in, read in the refresh
    /// token's statement, its sealed place opened) against off, each worker's chain begun by a dev sign-in with a
    /// device id from Seoul and refreshed from there; off, on, on, off.
    private func measureAlertRefreshes(
        _ servers: [Bool: HTTPTestClient],
        for duration: Duration
    ) async throws -> (on: Double, off: Double) {
        @Sendable func headers(_ worker: Int) -> [(String, String)] {
            [
                ("User-Agent", "BenchApp/1.0 CFNetwork/1490 Darwin/23.2.0 (iPhone)"),
                ("X-Forwarded-For", "175.223.10.\(worker % 250 + 1)"),
                ("Authlog-Device-Id", Base64URL.encode(SHA256.hash(Array("bench-refresh-device-\(worker)".utf8)))),
            ]
        }
        var chains: [Bool: TokenChains] = [:]
        for (alerts, client) in servers {
            var tokens: [String] = []
            for worker in 0..<self.connections {
                let answer = try await client.post(
                    "/v1/signin/dev",
                    .members(["subject": .string("bench-refresh-\(alerts)-\(worker)")]),
                    headers: headers(worker)
                )
                guard let token = answer.json["refresh_token"]?.stringValue else {
                    throw BenchFailure("a sign-in for the refresh chains failed")
                }
                tokens.append(token)
            }
            chains[alerts] = TokenChains(tokens)
        }
        var rates: [Bool: Double] = [:]
        for alerts in [false, true, true, false] {
            guard let client = servers[alerts], let chain = chains[alerts] else { continue }
            let run = try await LoadRun.run(connections: self.connections, for: duration) { worker, _ in
                let answer = try await client.post(
                    "/v1/token/refresh",
                    .members(["refresh_token": .string(chain.token(worker))]),
                    headers: headers(worker)
                )
                guard answer.status == 200, let next = answer.json["refresh_token"]?.stringValue else { return false }
                chain.set(worker, next)
                return true
            }
            say("refreshes with alerts \(alerts ? "on" : "off"): \(run.summary)")
            rates[alerts, default: 0] += run.rate / 2
        }
        return (rates[true] ?? 0, rates[false] ?? 0)
    }

    /// The lookup's own time: city and ASN facts of addresses in and out of the files, a million times.
    static func measureLookups(_ files: PlaceFilesFixture) throws {
        let lookup = try PlaceLookup(files: PlaceFiles(city: files.city, asn: files.asn))
        let addresses = ["175.223.10.7", "126.0.3.4", "2001:db8:10::5", "198.51.100.9", "192.0.2.1"].compactMap {
            IPAddress($0)
        }
        let count = 1_000_000
        var found = 0
        let start = ContinuousClock.now
        for index in 0..<count where lookup.place(of: addresses[index % addresses.count]).place != nil {
            found += 1
        }
        let seconds = (ContinuousClock.now - start).inSeconds
        say(
            String(
                format: "places lookup (city and ASN file, libmaxminddb): %.2f µs per sign-in (%d lookups, %d placed)",
                seconds / Double(count) * 1_000_000,
                count,
                found
            )
        )
    }
}
