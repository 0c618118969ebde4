import ArgumentParser
import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import AuthlogTransparency
import Foundation
import Hummingbird

/// `authlog-bench tiles`: inclusion proofs an auditor computes from tlog-tiles (with a tile cache), against
/// the proofs `/v1/log/proof/inclusion` computes, in the same run.
struct TilesBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tiles",
        abstract: "Measure inclusion proofs computed by a client from tiles against the proof route.",
        discussion: """
            Seeds sealed events with SQL, records a checkpoint row of the head (signing is not measured), and starts \
            `authlog serve` with log.tile_directory; once it has written the tiles, serves that directory with a \
            plain static file server (Hummingbird's FileMiddleware). Measured, one client, sequential requests: \
            proofs of random positions computed from the static tiles with a cold cache (every tile fetch \
            counted), then as many other random positions with the cache warm, the cold run again from serve's \
            /tile routes, and proofs from /v1/log/proof/inclusion; every proof is checked against the root. \
            Goal: tiles >= 20x the route.
            """
    )

    @OptionGroup var clusterOptions: ClusterOptions

    @Option(help: "Sealed events to seed.")
    var events: Int = 1_000_000

    @Option(help: "Inclusion proofs computed from tiles.")
    var tileProofs: Int = 100_000

    @Option(help: "Inclusion proofs asked of the route.")
    var routeProofs: Int = 2_000

    func run() async throws {
        let cluster = try self.clusterOptions.cluster()
        let database = try await BenchDatabase.make(in: cluster)
        let fillStart = ContinuousClock.now
        try await SyntheticFailures.fill(conninfo: database.conninfo, count: self.events)
        let connection = try await Connection.connect(database.conninfo)
        let head = try await EventReader().head(on: connection)
        try await connection.execute(
            """
            INSERT INTO authlog.checkpoints (tree_size, root, key_name, note, signed_at)
            SELECT size, root, 'bench', 'bench' || chr(10) || size || chr(10) || encode(root, 'base64') || chr(10),
                   now()
            FROM authlog.log_head
            """
        )
        say(String(format: "seeded %d sealed events in %.1f s", head.size, (ContinuousClock.now - fillStart).inSeconds))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("authlog-bench-tiles-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let tiles = folder.appendingPathComponent("tiles").path
        let configuration = JSONValue.object([("log", .object([("tile_directory", .string(tiles))]))])
        let writeStart = ContinuousClock.now
        let serve = try await ServeChildren.start(
            count: 1,
            conninfo: database.conninfo,
            configuration: configuration,
            folder: folder.path
        )
        do {
            try await self.measure(serve: serve, tiles: tiles, head: head, writeStart: writeStart)
        } catch {
            await serve.stop()
            throw error
        }
        await serve.stop()
    }

    private func measure(
        serve: ServeChildren,
        tiles: String,
        head: LogHead,
        writeStart: ContinuousClock.Instant
    )
        async throws
    {
        try await Self.waitForTiles(in: tiles, since: writeStart)
        let router = Router()
        router.add(middleware: FileMiddleware(tiles, searchForIndexHtml: false))
        let files = try await ServiceRunner.start(router: router)
        defer { Task { await files.stop() } }
        guard let authlog = serve.children.first?.baseURL else { throw BenchFailure("no server") }

        var random = SeededRandom(seed: UInt64(head.size))
        let positions = (0..<max(self.tileProofs, self.routeProofs)).map { _ in
            Int64.random(in: 1...head.size, using: &random)
        }
        let prover = TileProver(baseURL: files.baseURL, size: head.size, root: head.root)
        let coldRate = try await Self.pass("from static tiles, cold cache", positions.prefix(self.tileProofs), prover)
        let again = (0..<self.tileProofs).map { _ in Int64.random(in: 1...head.size, using: &random) }
        let warmRate = try await Self.pass("from static tiles, warm cache", again[...], prover, other: true)
        let routes = TileProver(baseURL: authlog, size: head.size, root: head.root)
        let routesRate = try await Self.pass(
            "from serve's /tile routes, cold cache",
            positions.prefix(self.tileProofs),
            routes
        )
        let route = try await self.fromRoute(authlog, Array(positions.prefix(self.routeProofs)), head)
        let routeRate = Double(self.routeProofs) / route
        say(
            String(
                format: "baseline /v1/log/proof/inclusion: %d proofs in %.2f s = %.0f proofs/s",
                self.routeProofs,
                route,
                routeRate
            )
        )
        say(
            String(
                format: "vs the route: static tiles cold %.1fx, warm %.1fx; serve's tile routes cold %.1fx; "
                    + "goal >= 20x: cold %@, warm %@",
                coldRate / routeRate,
                warmRate / routeRate,
                routesRate / routeRate,
                coldRate / routeRate >= 20 ? "met" : "NOT met",
                warmRate / routeRate >= 20 ? "met" : "NOT met"
            )
        )
    }

    /// Waits (at most 30 minutes) until serve has written the tile directory's checkpoint.
    private static func waitForTiles(in tiles: String, since writeStart: ContinuousClock.Instant) async throws {
        let deadline = ContinuousClock.now + .seconds(1_800)
        while !FileManager.default.fileExists(atPath: tiles + "/checkpoint") {
            guard ContinuousClock.now < deadline else { throw BenchFailure("serve wrote no tiles in 30 minutes") }
            try await Task.sleep(for: .milliseconds(200))
        }
        say(String(format: "serve wrote the tile directory in %.1f s", (ContinuousClock.now - writeStart).inSeconds))
    }

    /// Proves `positions` with `prover`, prints the pass as `label` and returns its proofs per second.
    private static func pass(
        _ label: String,
        _ positions: ArraySlice<Int64>,
        _ prover: TileProver,
        other: Bool = false
    ) async throws -> Double {
        let fetched = prover.fetches
        let seconds = try await Self.prove(positions, with: prover)
        let rate = Double(positions.count) / seconds
        say(
            String(
                format: "%@: %d %@proofs in %.2f s = %.0f proofs/s (%d tiles fetched)",
                label,
                positions.count,
                other ? "other " : "",
                seconds,
                rate,
                prover.fetches - fetched
            )
        )
        return rate
    }

    /// Seconds to prove and check `positions` with `prover`, one after another.
    private static func prove(_ positions: ArraySlice<Int64>, with prover: TileProver) async throws -> Double {
        let start = ContinuousClock.now
        for position in positions { try await prover.proveAndCheck(position: position) }
        return (ContinuousClock.now - start).inSeconds
    }

    private func fromRoute(_ baseURL: String, _ positions: [Int64], _ head: LogHead) async throws -> Double {
        let client = HTTPTestClient(baseURL: baseURL)
        let start = ContinuousClock.now
        for position in positions {
            let answer = try await client.send(
                "GET",
                "/v1/log/proof/inclusion?position=\(position)&tree_size=\(head.size)"
            )
            func hash(_ value: JSONValue?) throws -> [UInt8] {
                guard let text = value?.stringValue, let data = Data(base64Encoded: text) else {
                    throw BenchFailure("the proof of \(position) is malformed: \(answer.status)")
                }
                return Array(data)
            }
            let proof = try (answer.json["proof"]?.arrayValue ?? []).map { try hash($0) }
            let leaf = try hash(answer.json["leaf_hash"])
            guard
                InclusionProofCheck.holds(
                    index: position - 1,
                    size: head.size,
                    leafHash: leaf,
                    root: head.root,
                    proof: proof
                )
            else {
                throw BenchFailure("the route's proof of \(position) does not lead to the root")
            }
        }
        return (ContinuousClock.now - start).inSeconds
    }
}
