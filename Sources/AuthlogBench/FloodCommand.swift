import ArgumentParser
import AuthlogCore
import AuthlogTesting
import Foundation

/// `authlog-bench flood`: the attacker of the service benchmark's flood, in a process of its own, as an
/// attacker is on a host of its own: its client's connection pool, event loops and CPU are not the users'.
/// Sends `--requests` sign-ins over `--connections` keep-alive connections, the last `--rotating` of them
/// from a second address through 10,000 subjects; or, with `--seconds`, sends for that long instead, half the
/// connections from each address. Prints one JSON line: the requests sent, the answers that were 429, and the
/// seconds it took. Started by `authlog-bench service --limits-only`.
struct FloodCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flood",
        abstract: "Send a flood of sign-ins from two forwarded addresses (the service benchmark's attacker).",
        shouldDisplay: false
    )

    @Option(help: "The server's base URL.")
    var url: String

    @Option(help: "Sign-ins to send in all.")
    var requests = 120_000

    @Option(help: "The last this many come from a second address, rotating through 10,000 subjects.")
    var rotating = 20_000

    @Option(help: "Keep-alive connections, each sending its next request once answered.")
    var connections = 128

    @Option(help: "Send for this many seconds instead of a count (0: send --requests).")
    var seconds = 0.0

    func run() async throws {
        let client = HTTPTestClient(baseURL: self.url)
        let sent = Ticket()
        let timed = self.seconds > 0
        let (requests, rotatingFrom) = timed ? (Int.max, Int.max) : (self.requests, self.requests - self.rotating)
        let start = ContinuousClock.now
        let deadline = start + .milliseconds(Int64(self.seconds * 1000))
        let connections = self.connections
        let refused = await withTaskGroup(of: Int.self) { group in
            for connection in 0..<connections {
                group.addTask {
                    var refused = 0
                    while case let index = sent.take(), index < requests, !timed || ContinuousClock.now < deadline {
                        let rotating = timed ? connection >= connections / 2 : index >= rotatingFrom
                        let subject = rotating ? "subject-\(index % 10_000)" : "flood-\(index)"
                        let answer = try? await client.post(
                            "/v1/signin/dev",
                            .members(["subject": .string(subject)]),
                            headers: [("X-Forwarded-For", rotating ? "203.0.113.2" : "203.0.113.1")]
                        )
                        if answer?.status == 429 { refused += 1 }
                    }
                    return refused
                }
            }
            return await group.reduce(0, +)
        }
        let seconds = (ContinuousClock.now - start).inSeconds
        let line: JSONValue = .members([
            "sent": .number(String(timed ? sent.current - connections : requests)), "refused": .number(String(refused)),
            "seconds": .number(String(format: "%.3f", seconds)),
        ])
        print(String(decoding: line.canonicalBytes, as: UTF8.self))
    }
}
