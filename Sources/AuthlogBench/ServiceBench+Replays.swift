import AuthlogTesting
import Foundation

extension ServiceBench {
    /// Refreshes per second with one request in ten an immediate replay of the token the worker spent just
    /// before (answered from the sealed successor within `refresh_token.reuse_grace_seconds`), against the
    /// same load without replays, on the same server and connections; prints both and their ratio
    /// (goal: at least 0.9). The runs go without, with, with, without (each `duration`), so that a drift over
    /// the run (a growing log, a neighbour's load) weighs on both sides alike.
    func measureReplays(through client: HTTPTestClient, for duration: Duration) async throws {
        let plainChains = try await ReplayChains.signIn(workers: self.connections, through: client, prefix: "plain")
        let replayChains = try await ReplayChains.signIn(workers: self.connections, through: client, prefix: "replay")
        var plain: [LoadRun] = []
        var replaying: [LoadRun] = []
        for replays in [false, true, true, false] {
            let chains = replays ? replayChains : plainChains
            let run = try await LoadRun.run(connections: self.connections, for: duration) { worker, iteration in
                try await chains.refresh(worker, replaying: replays && iteration % 10 == 9, through: client)
            }
            say("refreshes \(replays ? "with 10 % immediate replays" : "without replays"): \(run.summary)")
            if replays { replaying.append(run) } else { plain.append(run) }
        }
        let ratio = replaying.map(\.rate).reduce(0, +) / plain.map(\.rate).reduce(0, +)
        say(
            String(
                format: "goal: refreshes with 10 %% replays >= 0.9x without: %.0f/s against %.0f/s, %.2fx %@",
                replaying.map(\.rate).reduce(0, +) / 2,
                plain.map(\.rate).reduce(0, +) / 2,
                ratio,
                ratio >= 0.9 ? "met" : "NOT met"
            )
        )
    }
}
