import AuthlogTesting
import Foundation

extension ServiceBench {
    /// Refreshes per second with one request in ten an immediate replay of the token the worker spent just
    /// before (answered from the sealed successor within `refresh_token.reuse_grace_seconds`), against the
    /// same run without replays, on the same server and connections; prints both and their ratio
    /// (goal: at least 0.9).
    func measureReplays(through client: HTTPTestClient, for duration: Duration) async throws {
        let plainChains = try await ReplayChains.signIn(workers: self.connections, through: client, prefix: "plain")
        let plain = try await LoadRun.run(connections: self.connections, for: duration) { worker, _ in
            try await plainChains.refresh(worker, replaying: false, through: client)
        }
        say("refreshes without replays: \(plain.summary)")
        let replayChains = try await ReplayChains.signIn(workers: self.connections, through: client, prefix: "replay")
        let replaying = try await LoadRun.run(connections: self.connections, for: duration) { worker, iteration in
            try await replayChains.refresh(worker, replaying: iteration % 10 == 9, through: client)
        }
        say("refreshes with 10 % immediate replays: \(replaying.summary)")
        let ratio = replaying.rate / plain.rate
        say(
            String(
                format: "goal: refreshes with 10 %% replays >= 0.9x without: %.2fx %@",
                ratio,
                ratio >= 0.9 ? "met" : "NOT met"
            )
        )
    }
}
