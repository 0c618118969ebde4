import AuthlogCore
import AuthlogTesting
import Synchronization

/// Each worker's refresh-token chain, keeping the token it spent last so that it can present it again at
/// once: a replay within the refresh grace window, which must be answered with the pair the chain holds.
final class ReplayChains: Sendable {
    private struct Chain {
        var spent: String?
        var current: String
        var accessToken: String?
    }

    private let chains: Mutex<[Chain]>

    private init(_ tokens: [String]) { self.chains = Mutex(tokens.map { Chain(spent: nil, current: $0) }) }

    /// One chain per worker, each begun by a dev sign-in through `client`.
    /// - Throws: ``BenchFailure`` when a sign-in is refused; what the client throws.
    static func signIn(workers: Int, through client: HTTPTestClient, prefix: String) async throws -> ReplayChains {
        var tokens: [String] = []
        for index in 0..<workers {
            let answer = try await client.post("/v1/signin/dev", .members(["subject": .string("\(prefix)-\(index)")]))
            guard let token = answer.json["refresh_token"]?.stringValue else { throw BenchFailure("sign-in failed") }
            tokens.append(token)
        }
        return ReplayChains(tokens)
    }

    /// Refreshes `worker`'s chain through `client`, or, when `replaying` and the chain has spent a token,
    /// presents that spent token again; whether the answer was a success (for a replay: the chain's current
    /// pair exactly).
    /// - Throws: what the client throws.
    func refresh(_ worker: Int, replaying: Bool, through client: HTTPTestClient) async throws -> Bool {
        let chain = self.chains.withLock { $0[worker] }
        if replaying, let spent = chain.spent {
            let answer = try await client.post("/v1/token/refresh", .members(["refresh_token": .string(spent)]))
            return answer.status == 200 && answer.json["refresh_token"]?.stringValue == chain.current
                && answer.json["access_token"]?.stringValue == chain.accessToken
        }
        let answer = try await client.post("/v1/token/refresh", .members(["refresh_token": .string(chain.current)]))
        guard answer.status == 200, let next = answer.json["refresh_token"]?.stringValue else { return false }
        let access = answer.json["access_token"]?.stringValue
        self.chains.withLock { $0[worker] = Chain(spent: chain.current, current: next, accessToken: access) }
        return true
    }
}
