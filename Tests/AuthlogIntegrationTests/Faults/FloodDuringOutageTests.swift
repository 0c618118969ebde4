import AuthlogCore
import AuthlogTesting
import Foundation
import Testing

extension Faults {
    /// The database going down during a flood: the limits keep answering 429 from memory (never 500, never
    /// everyone admitted), what cannot be recorded is answered 503, and the refusals counted meanwhile are
    /// recorded once the database is back, every one of them.
    @Suite(.enabled(if: TestDatabase.isAvailable), .serialized)
    struct FloodDuringOutageTests {
        static func signIn(_ client: HTTPTestClient, from address: String, _ subject: String) async -> Int? {
            try? await client.post(
                "/v1/signin/dev",
                .members(["subject": .string(subject)]),
                headers: [("X-Forwarded-For", address)]
            ).status
        }

        @Test(.timeLimit(.minutes(5)))
        func refusalsCountedWhileTheDatabaseIsDownAreRecordedWhenItIsBack() async throws {
            let cluster = try await PrivateCluster.start()
            defer { cluster.remove() }
            let folder = NSTemporaryDirectory() + "authlog-outage-" + UUID().uuidString.lowercased().prefix(8)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let server = try await ServeProcess.start(
                conninfo: cluster.conninfo,
                logFile: "\(folder)/serve.log",
                configuration: .members([
                    "trusted_proxies": .array([.string("127.0.0.1")]),
                    "rate_limits": .members([
                        "window_seconds": .number("2"), "maximum_refusal_delay_ms": .number("0"),
                        "per_address": .members([
                            "signin": .members(["per_second": .number("0.01"), "burst": .number("5")])
                        ]),
                    ]),
                ])
            )
            defer { server.stop() }
            let client = HTTPTestClient(baseURL: server.baseURL)
            var before: [Int?] = []
            for index in 0..<50 { before.append(await Self.signIn(client, from: "203.0.113.50", "flood-\(index)")) }
            #expect(before.filter { $0 == 200 }.count == 5 && before.filter { $0 == 429 }.count == 45, "\(before)")

            try cluster.stop()
            var during: [Int?] = []
            for index in 0..<200 { during.append(await Self.signIn(client, from: "203.0.113.50", "down-\(index)")) }
            #expect(
                during.allSatisfy { $0 == 429 },
                "the flood is still refused from memory: \(Set(during.map { $0 ?? 0 }))"
            )
            let elsewhere = await Self.signIn(client, from: "198.51.100.30", "user")
            #expect(elsewhere == 503, "a sign-in that cannot be recorded is refused as unavailable, not admitted")
            try await Task.sleep(for: .seconds(3))
            try await cluster.resume()

            let deadline = ContinuousClock.now + .seconds(60)
            var counted: Int64 = 0
            while ContinuousClock.now < deadline {
                counted =
                    (try? await cluster.scalar(
                        """
                        SELECT coalesce(sum((data->>'count')::int), 0) FROM authlog.event_records
                        WHERE type = 'ratelimit.exceeded' AND ip = '203.0.113.50'
                        """
                    )) ?? 0
                if counted >= 245 { break }
                try await Task.sleep(for: .milliseconds(500))
            }
            #expect(counted == 245, "every refusal, before and during the outage, is recorded once it is back")
            #expect(server.process.isRunning)
            #expect(await Self.signIn(client, from: "198.51.100.30", "user-after") == 200)
        }
    }
}
