import AuthlogCore
import AuthlogTesting
import Foundation
import Testing

extension Servers {
    /// Thirty seconds of anonymous requests from one host against a real `authlog serve` with the default
    /// limits: keyless exports and proofs, as fast as 16 connections go. The log grows by a handful of events
    /// that account for every request, and a user elsewhere is served meanwhile.
    @Suite(.enabled(if: TestDatabase.isAvailable), .serialized)
    struct AnonymousFloodTests {
        @Test func thirtySecondsOfKeylessReadsWriteAHandfulOfEvents() async throws {
            let database = try await TestDatabase.make()
            let server = try await ServeProcess.start(
                database: database,
                configuration: .members([
                    "trusted_proxies": .array([.string("127.0.0.1")]),
                    "rate_limits": .members(["enabled": .bool(true)]),
                ])
            )
            defer { if server.process.isRunning { server.stop() } }
            let client = HTTPTestClient(baseURL: server.baseURL)
            #expect(
                try await client.post(
                    "/v1/signin/dev",
                    .members(["subject": .string("seed")]),
                    headers: [("X-Forwarded-For", "198.51.100.20")]
                ).status == 200
            )
            let before = try await database.scalar("SELECT count(*) FROM authlog.event_records")
            let flood = [("X-Forwarded-For", "203.0.113.99")]
            let deadline = ContinuousClock.now + .seconds(30)
            let sent = try await withThrowingTaskGroup(of: Int.self) { group in
                for worker in 0..<16 {
                    group.addTask {
                        var count = 0
                        while ContinuousClock.now < deadline {
                            let path = worker % 2 == 0 ? "/v1/events" : "/v1/log/proof/inclusion?position=1"
                            let status = try await client.send("GET", path, headers: flood).status
                            #expect([200, 401, 429].contains(status), "\(path): \(status)")
                            count += 1
                        }
                        return count
                    }
                }
                return try await group.reduce(0, +)
            }
            let user = try await client.post(
                "/v1/signin/dev",
                .members(["subject": .string("bystander")]),
                headers: [("X-Forwarded-For", "198.51.100.21")]
            )
            #expect(user.status == 200, "a user elsewhere is served")
            server.stop()
            // A graceful stop records every open window before the sealer's last pass.
            let written = try await database.scalar("SELECT count(*) FROM authlog.event_records") - before
            let accounted = try await database.scalar(
                """
                SELECT coalesce(sum(coalesce((data->>'count')::int, 1)), 0) FROM authlog.event_records
                WHERE ip = '203.0.113.99' AND type IN ('audit.accessed', 'ratelimit.exceeded')
                """
            )
            #expect(sent > 1_000, "the flood ran: \(sent) requests")
            #expect(accounted == Int64(sent), "every request of the flood is accounted for")
            // Per window (60 s): a first and a summary for keyless exports, for anonymous proofs, and for each of
            // the two limits refused — plus the bystander's sign-in events.
            #expect(written <= 12, "\(written) events for \(sent) requests")
        }
    }
}
