import AuthlogCore
import AuthlogTesting
import Foundation
import Synchronization

/// Requests per second and latency percentiles of one timed run with a fixed number of connections.
struct LoadRun {
    let rate: Double
    let successes: Int
    let failures: Int
    let p50: Duration
    let p99: Duration
    /// How long the run took, in seconds.
    let seconds: Double

    var summary: String {
        String(
            format: "%.0f/s (%d ok, %d failed), p50 %.2f ms, p99 %.2f ms",
            self.rate,
            self.successes,
            self.failures,
            Self.milliseconds(self.p50),
            Self.milliseconds(self.p99)
        )
    }

    static func milliseconds(_ duration: Duration) -> Double {
        duration.inSeconds * 1000
    }

    /// Runs `request` on `connections` workers until `duration` passes; each call returns whether it succeeded.
    static func run(
        connections: Int,
        for duration: Duration,
        request: @escaping @Sendable (_ worker: Int, _ iteration: Int) async throws -> Bool
    ) async throws -> LoadRun {
        let clock = ContinuousClock()
        let start = clock.now
        let deadline = start + duration
        let results = try await withThrowingTaskGroup(of: (latencies: [Duration], ok: Int, failed: Int).self) { group in
            for worker in 0..<connections {
                group.addTask {
                    var latencies: [Duration] = []
                    var ok = 0
                    var failed = 0
                    var iteration = 0
                    while clock.now < deadline {
                        let began = clock.now
                        if try await request(worker, iteration) { ok += 1 } else { failed += 1 }
                        latencies.append(clock.now - began)
                        iteration += 1
                    }
                    return (latencies, ok, failed)
                }
            }
            return try await group.reduce(into: [(latencies: [Duration], ok: Int, failed: Int)]()) { $0.append($1) }
        }
        let seconds = (clock.now - start).inSeconds
        let latencies = results.flatMap(\.latencies).sorted()
        let successes = results.reduce(0) { $0 + $1.ok }
        func percentile(_ fraction: Double) -> Duration {
            latencies.isEmpty ? .zero : latencies[min(latencies.count - 1, Int(Double(latencies.count) * fraction))]
        }
        return LoadRun(
            rate: Double(successes) / seconds,
            successes: successes,
            failures: results.reduce(0) { $0 + $1.failed },
            p50: percentile(0.5),
            p99: percentile(0.99),
            seconds: seconds
        )
    }
}

/// Each worker's current refresh token.
final class TokenChains: Sendable {
    private let tokens: Mutex<[String]>

    init(_ tokens: [String]) { self.tokens = Mutex(tokens) }

    func token(_ worker: Int) -> String { self.tokens.withLock { $0[worker] } }

    func set(_ worker: Int, _ token: String) { self.tokens.withLock { $0[worker] = token } }

    /// One chain per worker, each begun by a dev sign-in through `clients` in turn.
    /// - Throws: ``BenchFailure`` when a sign-in is refused; what the client throws.
    static func signIn(workers: Int, through clients: [HTTPTestClient]) async throws -> TokenChains {
        var tokens: [String] = []
        for index in 0..<workers {
            let answer = try await clients[index % clients.count].post(
                "/v1/signin/dev",
                .members(["subject": .string("bench-\(index)")])
            )
            guard let token = answer.json["refresh_token"]?.stringValue else { throw BenchFailure("sign-in failed") }
            tokens.append(token)
        }
        return TokenChains(tokens)
    }

    /// Refreshes `worker`'s token through `client` and keeps the new one; whether the refresh succeeded.
    /// - Throws: what the client throws.
    func refresh(_ worker: Int, through client: HTTPTestClient) async throws -> Bool {
        let answer = try await client.post(
            "/v1/token/refresh",
            .members(["refresh_token": .string(self.token(worker))])
        )
        guard answer.status == 200, let next = answer.json["refresh_token"]?.stringValue else { return false }
        self.set(worker, next)
        return true
    }
}
