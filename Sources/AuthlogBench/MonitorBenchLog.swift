import AuthlogClient
import AuthlogCore
import AuthlogCrypto
import AuthlogPostgres
import AuthlogProviders
import AuthlogServer
import AuthlogStore
import AuthlogTesting
import AuthlogTransparency
import Foundation
import Synchronization

/// authlog's HTTP server in this process (development mode, rate limits off, as the other client figures) with a
/// checkpoint key and `witnesses` configured, whose log the benchmark drives itself instead of waiting for the
/// clock: it seals what the requests appended, signs a checkpoint, and stores each witness's cosignature of it
/// (real Ed25519 cosignatures), which is what `serve`'s sealer, signer and witnesses would have done by the time
/// a device asks (a device first asks 60 s after the event by default; `serve` signs every 60 s and submits to
/// each witness every 10 s).
final class MonitorBenchLog: Sendable {
    static let origin = "bench.localhost/log"

    let database: BenchDatabase
    let runner: ServiceRunner
    private let components: ServerComponents
    private let checkpointer: Checkpointer
    private let witnesses: [CosignatureSigner]
    private let logKey: String
    /// The next number for ``otherTraffic(_:)``'s streams: past any `SealedLogFill.fill` makes.
    private let generated = Mutex(1_000_000_000)

    private init(
        database: BenchDatabase,
        runner: ServiceRunner,
        components: ServerComponents,
        checkpointer: Checkpointer,
        witnesses: [CosignatureSigner],
        logKey: String
    ) {
        self.database = database
        self.runner = runner
        self.components = components
        self.checkpointer = checkpointer
        self.witnesses = witnesses
        self.logKey = logKey
    }

    /// Starts the server on `database` with a new checkpoint key and `witnessCount` witnesses (their URLs are
    /// never asked: nothing here submits).
    static func start(
        database: BenchDatabase,
        apple: FakeIdentityProvider,
        witnessCount: Int
    ) async throws
        -> MonitorBenchLog
    {
        let folder = NSTemporaryDirectory() + "authlog-bench-monitor-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let key = try PrivateKey.generate(for: .edDSA)
        try key.pemRepresentation().write(toFile: folder + "/checkpoint.pem", atomically: true, encoding: .utf8)
        let witnesses = try (0..<witnessCount).map {
            try CosignatureSigner(name: "witness\($0 + 1).bench.localhost", key: try PrivateKey.generate(for: .edDSA))
        }
        var log: [(name: String, value: JSONValue)] = [
            ("origin", .string(Self.origin)), ("checkpoint_key_file", .string(folder + "/checkpoint.pem")),
            ("checkpoint_directory", .string(folder + "/notes")),
        ]
        let entries: [JSONValue] = witnesses.map {
            .members([
                "name": .string($0.name), "url": .string("http://127.0.0.1:9"),
                "verifier_key": .string($0.verifier.verifierKey),
            ])
        }
        if !entries.isEmpty { log.append(("witnesses", .array(entries))) }
        let document: JSONValue = .members([
            "development": .bool(true),
            "rate_limits": .members(["enabled": .bool(false)]),
            "log": .object(log),
            "providers": .members([
                "apple": .members([
                    "client_ids": .array([.string("com.example.bench")]), "jwks_url": .string(apple.baseURL + "/jwks"),
                ])
            ]),
        ])
        let components = try ServerComponents(
            configuration: try document.decode(ServerConfiguration.self),
            pool: ConnectionPool(conninfo: database.conninfo, maximumConnections: 16),
            accessTokenKey: try PrivateKey.generate(for: .es256),
            fetcher: AsyncHTTPFetcher()
        )
        guard let checkpointer = components.checkpointer else { throw BenchFailure("no checkpointer") }
        let runner = try await ServiceRunner.start(router: try buildRouter(components: components).router)
        return MonitorBenchLog(
            database: database,
            runner: runner,
            components: components,
            checkpointer: checkpointer,
            witnesses: witnesses,
            logKey: try NoteSigner(name: Self.origin, key: key).verifier.verifierKey
        )
    }

    /// The port the server listens on.
    var port: Int { self.runner.port }

    /// What a device pins: the log's origin and key, and every witness with a quorum of all of them.
    func pins() throws -> LogPins {
        guard !self.witnesses.isEmpty else { return try LogPins(origin: Self.origin, verifierKey: self.logKey) }
        return try LogPins(
            origin: Self.origin,
            verifierKey: self.logKey,
            witnesses: self.witnesses.map(\.verifier.verifierKey),
            quorum: self.witnesses.count
        )
    }

    /// Seals every appended event, signs a checkpoint of the head and stores every witness's cosignature of it.
    /// - Returns: the checkpoint's size.
    @discardableResult
    func settle() async throws -> Int64 {
        try await self.components.store.sealPending()
        let signed = try await self.checkpointer.signNow()
        guard let body = NoteText(signed.note)?.body else { throw BenchFailure("the signed note does not parse") }
        let connection = try await Connection.connect(self.database.conninfo)
        let now = UInt64(Date().timeIntervalSince1970)
        for witness in self.witnesses {
            let line = try witness.cosign(body: body, time: now)
            try await CheckpointCosignatures.store(
                treeSize: signed.size,
                witness: witness.name,
                line: String(line.dropLast()),
                cosignedAt: Int64(now),
                on: connection
            )
        }
        return signed.size
    }

    /// Queues `count` sign-in failures of other people, with SQL (``SealedLogFill``'s rows, numbered after the
    /// ones `fill` made); ``settle()`` seals them.
    func otherTraffic(_ count: Int) async throws {
        guard count > 0 else { return }
        let first = self.generated.withLock { next in
            defer { next += count }
            return next
        }
        let connection = try await Connection.connect(self.database.conninfo)
        try await SealedLogFill.queue(numbers: first...(first + count - 1), on: connection)
    }

    /// The log's size (sealed events).
    func size() async throws -> Int64 {
        try await EventReader().head(on: try await Connection.connect(self.database.conninfo)).size
    }

    /// Stops the server.
    func stop() async { await self.runner.stop() }
}
