import AuthlogCore
import AuthlogCrypto
import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import AuthlogTransparency
import Foundation

/// Time from an event's commit to a witnessed checkpoint covering it: `authlog serve` (checkpoints every
/// second, one witness at a one-second interval) and one `authlog witness`, each its own process, under a
/// steady stream of sign-ins.
enum WitnessLatency {
    /// Runs `seconds` of sign-ins and prints p50/p99 of commit → witnessed, from the database's own clock
    /// (events' `recorded_at` against the cosignatures' `received_at`).
    static func measure(cluster: String, seconds: Double) async throws -> (p50: Double, p99: Double, events: Int) {
        let database = try await BenchDatabase.make(in: cluster)
        let folder = NSTemporaryDirectory() + "authlog-bench-witness-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let origin = "bench.localhost/log"
        let logKey = try PrivateKey.generate(for: .edDSA)
        try logKey.pemRepresentation().write(toFile: "\(folder)/log.pem", atomically: true, encoding: .utf8)
        let witnessKey = try PrivateKey.generate(for: .edDSA)
        try witnessKey.pemRepresentation().write(toFile: "\(folder)/witness.pem", atomically: true, encoding: .utf8)
        let witnessName = "bench.localhost/witness"
        let witness = try await self.startWitness(
            folder: folder,
            name: witnessName,
            logVerifierKey: try NoteSigner(name: origin, key: logKey).verifier.verifierKey
        )
        defer { witness.process.terminate() }
        let configuration: JSONValue = .members([
            "log": .members([
                "origin": .string(origin), "checkpoint_key_file": .string("\(folder)/log.pem"),
                "checkpoint_every_seconds": .number("1"), "checkpoint_every_events": .number("10000000"),
                "witness_interval_seconds": .number("1"), "witness_quorum": .number("1"),
                "witnesses": .array([
                    .members([
                        "name": .string(witnessName), "url": .string(witness.baseURL),
                        "verifier_key": .string(
                            try CosignatureSigner(name: witnessName, key: witnessKey).verifier.verifierKey
                        ),
                    ])
                ]),
            ])
        ])
        let servers = try await ServeChildren.start(
            count: 1,
            conninfo: database.conninfo,
            configuration: configuration,
            folder: folder + "/serve"
        )
        let signins = try await Self.signIn(
            through: HTTPTestClient(baseURL: servers.children[0].baseURL),
            for: seconds
        )
        // The last events' checkpoint and its cosignature.
        try await Task.sleep(for: .seconds(5))
        await servers.stop()
        return try await Self.delays(conninfo: database.conninfo, signins: signins)
    }

    /// Four workers signing in, each every 40 ms, for `seconds`; how many sign-ins were answered.
    private static func signIn(through client: HTTPTestClient, for seconds: Double) async throws -> Int {
        let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
        var signins = 0
        try await withThrowingTaskGroup(of: Int.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    var count = 0
                    while ContinuousClock.now < deadline {
                        let answer = try await client.post(
                            "/v1/signin/dev",
                            .members(["subject": .string("witnessed-\(worker)-\(count)")])
                        )
                        guard answer.status == 200 else { throw BenchFailure("sign-in answered \(answer.status)") }
                        count += 1
                        try await Task.sleep(for: .milliseconds(40))
                    }
                    return count
                }
            }
            for try await count in group { signins += count }
        }
        return signins
    }

    /// p50 and p99 of commit → first witnessed checkpoint covering it, from the database's clock, and the
    /// number of sign-ins; every one of the `signins` must be recorded and witnessed.
    private static func delays(conninfo: String, signins: Int) async throws -> (p50: Double, p99: Double, events: Int) {
        let rows = try await Connection.connect(conninfo).query(
            """
            WITH witnessed AS (
                SELECT tree_size, min(received_at) AS at FROM authlog.checkpoint_cosignatures GROUP BY tree_size),
            delays AS (
                SELECT extract(epoch FROM (SELECT min(w.at) FROM witnessed w WHERE w.tree_size >= l.position)
                                          - r.recorded_at) * 1000 AS d
                FROM authlog.log_leaves l JOIN authlog.event_records r USING (event_id, log_month)
                WHERE r.type = 'signin.succeeded')
            SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY d), percentile_cont(0.99) WITHIN GROUP (ORDER BY d),
                   count(d), count(*)
            FROM delays
            """
        )
        guard let row = rows.first else { throw BenchFailure("no delays") }
        let witnessed = try row.decode(Int.self, at: 2)
        let total = try row.decode(Int.self, at: 3)
        guard witnessed == total, total == signins else {
            throw BenchFailure("\(total) sign-ins recorded of \(signins), \(witnessed) of them witnessed")
        }
        return (try row.decode(Double.self, at: 0), try row.decode(Double.self, at: 1), total)

    }

    /// `authlog witness` on a free port, its log in `folder`.
    private static func startWitness(
        folder: String,
        name: String,
        logVerifierKey: String
    ) async throws
        -> (process: Process, baseURL: String)
    {
        let logFile = "\(folder)/witness.log"
        _ = FileManager.default.createFile(atPath: logFile, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logFile))
        defer { try? log.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ServeChildren.executable)
        process.arguments = [
            "witness", "--listen", "127.0.0.1:0", "--key", "\(folder)/witness.pem", "--name", name,
            "--state-dir", "\(folder)/witness-state", "--log", logVerifierKey,
        ]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = log
        process.standardError = log
        try process.run()
        if let port = try await ListeningAddress.port(loggedIn: logFile, by: process, within: .seconds(30)) {
            return (process, "http://127.0.0.1:\(port)")
        }
        process.terminate()
        throw BenchFailure("authlog witness did not start; see \(logFile)")
    }
}
