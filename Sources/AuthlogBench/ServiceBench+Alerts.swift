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
    /// goal: at least 0.95x. Returning users (2,000, each signed in once on each server before the clock), each
    /// from its own address and device, one sign-in in twenty from the other city (judged: impossible travel).
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
        let perRun = Int(self.seconds * 3_000) + users
        let tokens = try Self.appleTokens(apple: apple, count: users * 2 + perRun * 4)
        let ticket = Ticket()
        // The first 2 × 2,000 tokens warm the servers up, one per user each; the runs take the rest.
        // One sign-in with the next token, of its user (token `index` is Apple user `index % 2000`), from the
        // user's own address and device; every twentieth from Tokyo.
        @Sendable func signIn(_ client: HTTPTestClient, index: Int, iteration: Int) async throws -> Bool {
            guard index < tokens.count else { return false }
            let user = index % users
            let away = iteration % 20 == 19
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
        // Every user signs in once on each server first: the measured sign-ins are returning users with a history.
        for client in [servers[false], servers[true]].compactMap({ $0 }) {
            let end = ticket.current + users
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
        var runs: [Bool: [LoadRun]] = [:]
        for alerts in [false, true, true, false] {
            guard let client = servers[alerts] else { continue }
            let run = try await LoadRun.run(connections: self.connections, for: duration) { _, iteration in
                try await signIn(client, index: ticket.take(), iteration: iteration)
            }
            say(
                "sign-ins with alerts \(alerts ? "on (device id, places, history, sealed place)" : "off"): \(run.summary)"
            )
            runs[alerts, default: []].append(run)
        }
        await on.stop()
        await off.stop()
        let rate = { (alerts: Bool) in (runs[alerts] ?? []).map(\.rate).reduce(0, +) / 2 }
        let ratio = rate(true) / rate(false)
        say(
            String(
                format: "goal: sign-ins with alerts on >= 0.95x off: %.0f/s against %.0f/s, %.2fx %@",
                rate(true),
                rate(false),
                ratio,
                ratio >= 0.95 ? "met" : "NOT met"
            )
        )
        try Self.measureLookups(files)
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
