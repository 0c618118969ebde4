import ArgumentParser
import AuthlogCore
import AuthlogCrypto
import AuthlogPostgres
import AuthlogProviders
import AuthlogServer
import AuthlogStore
import AuthlogTesting
import Foundation
import Hummingbird

/// `authlog-bench service`: sign-ins and refreshes per second through HTTP, with latencies.
struct ServiceBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "service",
        abstract: "Measure sign-ins and refreshes per second over HTTP against baselines in the same run.",
        discussion: """
            Starts authlog's HTTP server in this process on a fresh database of the given cluster, and a fake Apple \
            (a real HTTP server on 127.0.0.1 serving its JWKS). Sign-ins present Apple identity tokens signed before \
            the clock starts; refreshes rotate each connection's own token chain. Baseline: GET /healthz on the same \
            server and connections (the HTTP stack's ceiling here); goal: 1,000 refreshes per second per vCPU. \
            Then refreshes with one request in ten an immediate replay of the token just spent (the reuse grace \
            window) against refreshes without, in the order without, with, with, without; goal: at least 0.9x. \
            With --limits-only: refreshes with the rate limits on against off (goal: at least 0.95x), and the \
            events a one-address flood's refusals wrote per 1,000 refused (goal: at most 1). With --alerts-only: \
            sign-ins with sign-in alerts on (device ids, real MaxMind DB files, the history read, the place sealed) \
            against off, on two servers over one database (goal: at least 0.95x), the same for refreshes, and the \
            places lookup's time.
            """
    )

    @OptionGroup var clusterOptions: ClusterOptions

    @Option(help: "Seconds each measurement runs.")
    var seconds: Double = 5

    @Option(help: "Concurrent connections.")
    var connections: Int = 64

    @Option(
        parsing: .upToNextOption,
        help: """
            Instead: run sign-ins and refreshes against this many `authlog serve` processes on one database, \
            for each count given (such as 1 3), the connections spread over them.
            """
    )
    var processes: [Int] = []

    @Flag(help: "Only measure refreshes with 10 % immediate replays against refreshes without (and their ratio).")
    var replaysOnly = false

    @Flag(
        help: """
            Only measure refreshes with the rate limits on against off (and their ratio), then a sign-in flood             from one address and the events its refusals wrote per 1,000.
            """
    )
    var limitsOnly = false

    @Flag(help: "Only measure sign-ins with sign-in alerts on against off (and their ratio), and the places lookup.")
    var alertsOnly = false

    @Flag(help: "Only measure refreshes of DPoP-bound families (a proof each) against Bearer ones (and their ratio).")
    var dpopOnly = false

    @Option(help: "With --alerts-only: one sign-in in this many comes from another city (0: none).")
    var awayEvery = 20

    @Flag(
        help: """
            With --alerts-only: after each run, PostgreSQL's time and WAL per sign-in by statement \
            (pg_stat_statements, which the server must preload: with .ci/test-postgres, \
            AUTHLOG_TEST_PG_OPTIONS="-c shared_preload_libraries=pg_stat_statements \
            -c pg_stat_statements.track_planning=on"; the bench creates the extension).
            """
    )
    var statements = false

    func validate() throws {
        guard (1...1024).contains(self.connections) else { throw ValidationError("--connections: 1…1024") }
        guard self.processes.allSatisfy({ (1...16).contains($0) }) else { throw ValidationError("--processes: 1…16") }
        guard !self.statements || self.alertsOnly else {
            throw ValidationError("--statements: only with --alerts-only")
        }
        guard self.seconds > 0, self.seconds <= 3600 else {
            throw ValidationError("--seconds: more than 0, at most 3600")
        }
    }

    func run() async throws {
        if !self.processes.isEmpty {
            try await self.runProcesses()
            return
        }
        let cluster = try self.clusterOptions.cluster()
        let duration = Duration.milliseconds(Int64(self.seconds * 1000))
        let apple = try await FakeIdentityProvider.start()
        let database = try await BenchDatabase.make(in: cluster)
        let server = try await Self.startServer(database: database, apple: apple)
        let client = HTTPTestClient(baseURL: server.baseURL)
        let cores = ProcessInfo.processInfo.activeProcessorCount
        say(
            "service benchmark: \(self.connections) connections, \(cores) vCPUs, server, fake Apple and PostgreSQL on this machine"
        )

        if self.limitsOnly {
            await server.stop()
            try await self.measureLimits(database: database, for: duration)
            await apple.stop()
            return
        }
        if self.alertsOnly {
            await server.stop()
            try await self.measureAlerts(database: database, apple: apple, for: duration)
            await apple.stop()
            return
        }
        if self.dpopOnly {
            try await self.measureDPoP(through: client, database: database, for: duration)
            await server.stop()
            await apple.stop()
            return
        }
        if self.replaysOnly {
            try await self.measureReplays(through: client, for: duration)
            await server.stop()
            await apple.stop()
            return
        }
        let health = try await LoadRun.run(connections: self.connections, for: duration) { _, _ in
            try await client.send("GET", "/healthz").status == 200
        }
        say("baseline GET /healthz: \(health.summary)")

        let tokens = try Self.appleTokens(apple: apple, count: Int(self.seconds * 4000) + 1000)
        let ticket = Ticket()
        let signins = try await LoadRun.run(connections: self.connections, for: duration) { _, _ in
            let index = ticket.take()
            guard index < tokens.count else { return false }
            return try await client.post("/v1/signin/apple", tokens[index]).status == 200
        }
        say("sign-ins (Apple ID token, fake JWKS): \(signins.summary)")

        let chains = try await TokenChains.signIn(workers: self.connections, through: [client])
        let postmaster = try await ProcessCPU.postmaster(of: try await Connection.connect(database.conninfo))
        let refreshCPU = CPUSplit.start(postmaster: postmaster)
        let refreshes = try await LoadRun.run(connections: self.connections, for: duration) { worker, _ in
            try await chains.refresh(worker, through: client)
        }
        say("refreshes: \(refreshes.summary)")
        say("  \(refreshCPU.perRequest(of: refreshes))")
        try await self.measureReplays(through: client, for: duration)
        await server.stop()
        await apple.stop()

        let floor = try await self.measureFloor(database: database, for: duration)
        Self.printGoals(health: health, signins: signins, refreshes: refreshes, floor: floor, cores: cores)
    }

    /// The floor baseline: the same HTTP stack answering with one indexed SELECT and one single-row INSERT.
    private func measureFloor(database: BenchDatabase, for duration: Duration) async throws -> LoadRun {
        let floorServer = try await Self.startFloorServer(database: database)
        let floorClient = HTTPTestClient(baseURL: floorServer.baseURL)
        let postmaster = try await ProcessCPU.postmaster(of: try await Connection.connect(database.conninfo))
        let floorCPU = CPUSplit.start(postmaster: postmaster)
        let floor = try await LoadRun.run(connections: self.connections, for: duration) { _, _ in
            try await floorClient.post("/floor", .members(["x": .string("y")])).status == 200
        }
        let floorCost = floorCPU.perRequest(of: floor)
        await floorServer.stop()
        say(
            "floor baseline (same HTTP stack; one indexed SELECT + one single-row INSERT transaction): \(floor.summary)"
        )
        say("  \(floorCost)")

        return floor
    }

    /// The ratios and the two refresh goals.
    private static func printGoals(health: LoadRun, signins: LoadRun, refreshes: LoadRun, floor: LoadRun, cores: Int) {
        let perCPU = refreshes.rate / Double(cores)
        say("")
        say(String(format: "sign-ins / healthz baseline: %.2f", signins.rate / health.rate))
        say(String(format: "refreshes / healthz baseline: %.2f", refreshes.rate / health.rate))
        say(
            String(
                format: "goal: refreshes >= 0.7x the floor baseline: %.2fx %@",
                refreshes.rate / floor.rate,
                refreshes.rate / floor.rate >= 0.7 ? "met" : "NOT met"
            )
        )
        say(
            String(
                format: "goal: >= 1,000 refreshes/s per vCPU: %.0f per vCPU (%.2fx the goal) %@",
                perCPU,
                perCPU / 1000,
                perCPU >= 1000 ? "met" : "NOT met"
            )
        )
    }

    /// authlog's server in this process over `database`, with Apple pointed at the fake and `extra` members
    /// added to its configuration.
    static func startServer(
        database: BenchDatabase,
        apple: FakeIdentityProvider,
        extra: [String: JSONValue] = [:]
    ) async throws -> ServiceRunner {
        var members: [String: JSONValue] = [
            "development": .bool(true),
            // Every client of the load runs on this host: no per-address limit in the way.
            "rate_limits": .members(["enabled": .bool(false)]),
            "providers": .members([
                "apple": .members([
                    "client_ids": .array([.string("com.example.bench")]), "jwks_url": .string(apple.baseURL + "/jwks"),
                ])
            ]),
        ]
        members.merge(extra) { _, new in new }
        let document = JSONValue.object(members.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) })
        let configuration = try document.decode(ServerConfiguration.self)
        let components = try ServerComponents(
            configuration: configuration,
            pool: ConnectionPool(conninfo: database.conninfo, maximumConnections: 16),
            accessTokenKey: try PrivateKey.generate(for: .es256),
            fetcher: AsyncHTTPFetcher()
        )
        return try await ServiceRunner.start(router: try buildRouter(components: components).router)
    }

    /// The floor baseline: the same HTTP stack (Hummingbird on ``ServiceRunner``, a pool of 16 connections)
    /// answering `POST /floor` with one indexed SELECT and one single-row INSERT transaction per request, the
    /// least any audited write can cost.
    static func startFloorServer(database: BenchDatabase) async throws -> ServiceRunner {
        let pool = ConnectionPool(conninfo: database.conninfo, maximumConnections: 16)
        _ = try await pool.withConnection { connection in
            try await connection.execute(
                "CREATE TABLE public.floor_rows (id uuid PRIMARY KEY, at timestamptz NOT NULL, body text NOT NULL)"
            )
        }
        let router = Router()
        router.post("/floor") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 65_536)
            let id = UUID()
            try await pool.withConnection { connection in
                try await connection.query("SELECT state FROM authlog.sessions WHERE session_id = \(id)")
                try await connection.pipeline([
                    "BEGIN",
                    "INSERT INTO public.floor_rows (id, at, body) VALUES (\(id), now(), \(String(buffer: body)))",
                    "COMMIT",
                ])
            }
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "{}")))
        }
        return try await ServiceRunner.start(router: router)
    }

    /// Sign-in bodies with fresh nonces for 2,000 distinct Apple users (most sign-ins are returning users).
    static func appleTokens(apple: FakeIdentityProvider, count: Int) throws -> [JSONValue] {
        try (0..<count).map { index in
            let raw = "bench-nonce-\(index)-\(UUID().uuidString)"
            let claims = FakeIdentityProvider.claims(
                issuer: "https://appleid.apple.com",
                audience: .string("com.example.bench"),
                subject: "apple-\(index % 2000)",
                nonce: Hex.encode(SHA256.hash(Array(raw.utf8)))
            )
            return .members(["id_token": .string(try apple.sign(claims)), "raw_nonce": .string(raw)])
        }
    }
}
