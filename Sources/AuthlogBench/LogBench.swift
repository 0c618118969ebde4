import ArgumentParser
import AuthlogCore
import AuthlogCrypto
import AuthlogPostgres
import AuthlogProviders
import AuthlogServer
import AuthlogStore
import AuthlogTesting
import Foundation

/// `authlog-bench log`: what the log's outside checks cost: the write path with event MACs and checkpoint
/// signing on against off, and the latency of a receipt at a million events against the proof route.
struct LogBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log",
        abstract: "Measure the cost of event MACs, checkpoint signing and receipts against baselines in the same run.",
        discussion: """
            1. The store at --appenders appenders, with the event key and a checkpoint signer signing every second \
            (its state outside the database), against both off, in alternating rounds; goal: at least 0.95x. \
            2. A log of --events sealed events (made with SQL and sealed by the sealer), a server in this process, \
            sign-ins, then --receipts receipts fetched by their users (GET /v1/log/receipt/{event_id}) against the \
            inclusion proof route for the same positions; goal: receipt p99 under 50 ms. \
            3. `authlog serve` (checkpoints every second) and one `authlog witness` (release builds beside this \
            program), sign-ins for --witness-seconds: time from each event's commit to the first witnessed \
            checkpoint covering it; goal p99 <= 2 s.
            """
    )

    @OptionGroup var clusterOptions: ClusterOptions

    @Option(help: "Seconds each store round runs.")
    var seconds: Double = 4

    @Option(help: "Concurrent appenders of the store rounds.")
    var appenders: Int = 32

    @Option(help: "Store rounds of each kind (alternating).")
    var rounds: Int = 2

    @Option(help: "Sealed events before the receipts are measured.")
    var events: Int = 1_000_000

    @Option(help: "Receipts fetched (and proofs, the baseline).")
    var receipts: Int = 1000

    @Option(help: "Seconds of sign-ins while checkpoints are witnessed.")
    var witnessSeconds: Double = 20

    func validate() throws {
        guard self.seconds > 0, self.seconds <= 3600 else {
            throw ValidationError("--seconds: more than 0, at most 3600")
        }
        guard (1...1024).contains(self.appenders) else { throw ValidationError("--appenders: 1…1024") }
        guard (1...20).contains(self.rounds) else { throw ValidationError("--rounds: 1…20") }
        guard (1_000...100_000_000).contains(self.events) else { throw ValidationError("--events: 1000…100000000") }
        guard (10...1_000_000).contains(self.receipts) else { throw ValidationError("--receipts: 10…1000000") }
        guard self.witnessSeconds >= 1, self.witnessSeconds <= 3600 else {
            throw ValidationError("--witness-seconds: 1…3600")
        }
    }

    func run() async throws {
        let cluster = try self.clusterOptions.cluster()
        try await self.storeRounds(cluster)
        try await self.receiptLatency(cluster)
        let witnessed = try await WitnessLatency.measure(cluster: cluster, seconds: self.witnessSeconds)
        say(
            String(
                format:
                    "commit to witnessed checkpoint (1 s signing, 1 witness), %d sign-ins: p50 %.0f ms, p99 %.0f ms "
                    + "(goal p99 <= 2000 ms: %@)",
                witnessed.events,
                witnessed.p50,
                witnessed.p99,
                witnessed.p99 <= 2000 ? "met" : "NOT met"
            )
        )
    }

    /// The store with the event key and a checkpoint signer every second, against neither.
    private func storeRounds(_ cluster: String) async throws {
        let workload = Workload.make(events: 250_000)
        let duration = Duration.milliseconds(Int64(self.seconds * 1000))
        var off: [Double] = []
        var on: [Double] = []
        for round in 1...self.rounds {
            for authenticated in [false, true] {
                let database = try await BenchDatabase.make(in: cluster)
                let key = authenticated ? try EventAuthenticator(key: SecureRandom.bytes(count: 32)) : nil
                let signer = authenticated ? try CheckpointSigning.start(database: database, authenticator: key) : nil
                let rate = try await Measurements.writersAndSealer(
                    workload,
                    appenders: self.appenders,
                    for: duration,
                    in: database,
                    authenticator: key
                ).rate
                let signed = await signer?.stop() ?? 0
                say(
                    String(
                        format: "round %d, %@: %.0f events sealed/s%@",
                        round,
                        authenticated ? "MAC + checkpoints every second" : "neither",
                        rate,
                        authenticated ? ", \(signed) checkpoints signed" : ""
                    )
                )
                if authenticated { on.append(rate) } else { off.append(rate) }
            }
        }
        let ratio = (on.reduce(0, +) / Double(on.count)) / (off.reduce(0, +) / Double(off.count))
        say(
            String(
                format: "store at %d appenders, MAC and checkpoint signing on / off: %.2fx (goal >= 0.95x: %@)",
                self.appenders,
                ratio,
                ratio >= 0.95 ? "met" : "NOT met"
            )
        )
    }

    /// Receipts fetched by their users at `events` sealed events, against the proof route.
    private func receiptLatency(_ cluster: String) async throws {
        let database = try await BenchDatabase.make(in: cluster)
        let fillStart = ContinuousClock.now
        try await SealedLogFill.fill(database, events: self.events)
        say(
            String(
                format: "filled and sealed %d events in %.1f s",
                self.events,
                (ContinuousClock.now - fillStart).inSeconds
            )
        )
        let keyFile = NSTemporaryDirectory() + "authlog-bench-\(UUID().uuidString).pem"
        defer { try? FileManager.default.removeItem(atPath: keyFile) }
        let components = try Self.signingComponents(conninfo: database.conninfo, keyFile: keyFile)
        let server = try await ServiceRunner.start(router: try buildRouter(components: components).router)
        defer { Task { await server.stop() } }
        let client = HTTPTestClient(baseURL: server.baseURL)
        let users = try await Self.signInReceiptHolders(client)
        guard let checkpointer = components.checkpointer else { throw BenchFailure("no checkpoint signer") }
        let signed = try await checkpointer.signNow()
        say("checkpoint of \(signed.size) events signed")
        var positions: [Int64] = []
        for user in users {
            let rows = try await Connection.connect(database.conninfo).query(
                "SELECT position FROM authlog.log_leaves WHERE event_id = \(user.event)::uuid"
            )
            positions.append(try rows.first?.decode(Int64.self, at: 0) ?? 1)
        }
        let receipts = try await Self.latencies(count: self.receipts) { index in
            let user = users[index % users.count]
            let answer = try await client.send(
                "GET",
                "/v1/log/receipt/\(user.event)",
                headers: [("Authorization", "Bearer \(user.token)")]
            )
            guard answer.status == 200 else { throw BenchFailure("receipt answered \(answer.status)") }
        }
        let proofs = try await Self.latencies(count: self.receipts) { index in
            let answer = try await client.send(
                "GET",
                "/v1/log/proof/inclusion?position=\(positions[index % positions.count])&tree_size=\(signed.size)"
            )
            guard answer.status == 200 else { throw BenchFailure("proof answered \(answer.status)") }
        }
        say(
            String(
                format: "receipts at %d events: p50 %.2f ms, p99 %.2f ms; proof route: p50 %.2f ms, p99 %.2f ms "
                    + "(receipt p99 / proof p99 %.2fx); goal receipt p99 < 50 ms: %@",
                signed.size,
                receipts.p50,
                receipts.p99,
                proofs.p50,
                proofs.p99,
                receipts.p99 / max(proofs.p99, 0.001),
                receipts.p99 < 50 ? "met" : "NOT met"
            )
        )
    }

    /// A server's components over `conninfo` with a checkpoint key (written to `keyFile`) and no read limit.
    private static func signingComponents(conninfo: String, keyFile: String) throws -> ServerComponents {
        let key = try PrivateKey.generate(for: .edDSA)
        try key.pemRepresentation().write(toFile: keyFile, atomically: true, encoding: .utf8)
        let document: JSONValue = .members([
            "development": .bool(true),
            "log": .members([
                "origin": .string("bench.localhost/log"), "checkpoint_key_file": .string(keyFile),
            ]),
            // The baseline's proofs come from one address: no rate limit in the way.
            "rate_limits": .members(["enabled": .bool(false)]),
        ])
        return try ServerComponents(
            configuration: try document.decode(ServerConfiguration.self),
            pool: ConnectionPool(conninfo: conninfo, maximumConnections: 16),
            accessTokenKey: try PrivateKey.generate(for: .es256),
            fetcher: AsyncHTTPFetcher()
        )
    }

    /// Signs 50 users in; each one's access token and the id of the first event of their sign-in.
    private static func signInReceiptHolders(_ client: HTTPTestClient) async throws -> [(token: String, event: String)]
    {
        var users: [(token: String, event: String)] = []
        for index in 0..<50 {
            let answer = try await client.post("/v1/signin/dev", .members(["subject": .string("receipt-\(index)")]))
            guard let token = answer.json["access_token"]?.stringValue,
                let event = answer.header("Authlog-Event-Ids")?.split(separator: ",").first
            else { throw BenchFailure("sign-in failed: \(answer.status)") }
            users.append((token, String(event)))
        }
        return users
    }

    /// `count` calls of `body`, one at a time: p50 and p99 in milliseconds.
    static func latencies(count: Int, _ body: (Int) async throws -> Void) async throws -> (p50: Double, p99: Double) {
        var samples: [Double] = []
        samples.reserveCapacity(count)
        for index in 0..<count {
            let start = ContinuousClock.now
            try await body(index)
            samples.append((ContinuousClock.now - start).inSeconds * 1000)
        }
        samples.sort()
        return (samples[samples.count / 2], samples[min(samples.count - 1, samples.count * 99 / 100)])
    }
}
