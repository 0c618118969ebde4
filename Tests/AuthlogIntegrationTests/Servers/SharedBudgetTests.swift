import AuthlogCore
import AuthlogTesting
import Foundation
import Testing

extension Servers {
    /// Two `authlog serve` processes on one database share one budget per key: what one admitted is charged
    /// to the other's bucket within about two seconds (docs/configuration.md, "Several processes").
    @Suite(.enabled(if: TestDatabase.isAvailable), .serialized)
    struct SharedBudgetTests {
        static let configuration: JSONValue = .members([
            "trusted_proxies": .array([.string("127.0.0.1")]),
            "rate_limits": .members([
                "per_address": .members(["signin": .members(["per_second": .number("0.1"), "burst": .number("10")])])
            ]),
        ])

        static func signIn(_ server: ServeProcess, from address: String, _ subject: String) async throws -> Int {
            try await HTTPTestClient(baseURL: server.baseURL).post(
                "/v1/signin/dev",
                .members(["subject": .string(subject)]),
                headers: [("X-Forwarded-For", address)]
            ).status
        }

        /// The sync passes `server` has made, from its `/metrics`.
        static func passes(_ server: ServeProcess) async throws -> Int {
            let text = String(
                decoding: try await HTTPTestClient(baseURL: server.baseURL).send("GET", "/metrics").body,
                as: UTF8.self
            )
            let line = text.split(separator: "\n").first { $0.hasPrefix("authlog_rate_limit_sync_passes_total ") }
            return line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
        }

        @Test func whatOneProcessAdmittedTheOtherRefuses() async throws {
            let database = try await TestDatabase.make()
            let first = try await ServeProcess.start(database: database, configuration: Self.configuration)
            defer { first.stop() }
            let second = try await ServeProcess.start(database: database, configuration: Self.configuration)
            defer { second.stop() }
            for index in 0..<10 {
                #expect(try await Self.signIn(first, from: "203.0.113.77", "burst-\(index)") == 200)
            }
            #expect(try await Self.signIn(first, from: "203.0.113.77", "over") == 429, "the first's burst is spent")
            // The first publishes its admissions on its next pass; the second charges them on its next pass after
            // that. Waited for by what each shows, not by a fixed sleep, so that a loaded machine only slows it.
            let deadline = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now < deadline,
                try await database.scalar(
                    "SELECT coalesce(sum(admitted), 0) FROM authlog.rate_limit_usage WHERE key = '203.0.113.77'"
                ) < 10
            {
                try await Task.sleep(for: .milliseconds(200))
            }
            let published = try await Self.passes(second)
            while ContinuousClock.now < deadline, try await Self.passes(second) < published + 2 {
                try await Task.sleep(for: .milliseconds(200))
            }
            #expect(
                try await Self.signIn(second, from: "203.0.113.77", "elsewhere") == 429,
                "the second charged the first's ten: one budget for the address, not one per process"
            )
            #expect(try await Self.signIn(second, from: "198.51.100.8", "bystander") == 200, "another address")
            let rows = try await database.scalar(
                "SELECT count(DISTINCT process) FROM authlog.rate_limit_usage WHERE key = '203.0.113.77'"
            )
            #expect(rows == 1, "only the first admitted this address")
        }
    }
}
