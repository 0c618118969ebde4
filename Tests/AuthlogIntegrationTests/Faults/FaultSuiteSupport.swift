import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `authlog serve --dev --port 0` as an OS process whose log goes to a file: under load it logs a line per
/// request, and a pipe nobody reads would fill up and stall the server.
struct ServeProcess {
    let process: Process
    let baseURL: String
    let logFile: String

    /// The port it listens on.
    var port: Int { Int(self.baseURL.split(separator: ":").last ?? "") ?? 0 }

    /// Starts the server on a test database with its log in a new temporary file, and `configuration` as its
    /// `--config` file when given.
    static func start(database: TestDatabase, configuration: JSONValue? = nil) async throws -> ServeProcess {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("authlog-serve-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return try await Self.start(
            conninfo: database.conninfo,
            logFile: "\(folder)/serve.log",
            configuration: configuration
        )
    }

    /// Starts the server on `conninfo` and waits until it logs its address; `logFile` must be new.
    static func start(conninfo: String, logFile: String, configuration: JSONValue? = nil) async throws -> ServeProcess {
        var arguments = ["serve", "--dev", "--port", "0"]
        // The suites' clients all run on this host: the rate limits are off unless a suite configures them.
        var document = configuration ?? .object([])
        if case .object(let members) = document, !members.contains(where: { $0.name == "rate_limits" }) {
            document = .object(members + [("rate_limits", .members(["enabled": .bool(false)]))])
        }
        let path = logFile + ".config.json"
        try Data(document.canonicalBytes).write(to: URL(fileURLWithPath: path))
        arguments += ["--config", path]
        _ = FileManager.default.createFile(atPath: logFile, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logFile))
        defer { try? log.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CLIProcess.executable)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["AUTHLOG_DATABASE_URL"] = conninfo
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = log
        process.standardError = log
        try process.run()
        if let port = try await ListeningAddress.port(loggedIn: logFile, by: process, within: .seconds(60)) {
            return ServeProcess(process: process, baseURL: "http://127.0.0.1:\(port)", logFile: logFile)
        }
        process.terminate()
        throw CocoaError(
            .fileReadUnknown,
            userInfo: [NSLocalizedDescriptionKey: "the server did not start; see \(logFile)"]
        )
    }

    /// Kills the server with SIGKILL and waits for it to be gone.
    func kill() {
        Glibc.kill(self.process.processIdentifier, SIGKILL)
        self.process.waitUntilExit()
    }

    /// Stops the server with SIGTERM and waits for it.
    func stop() {
        self.process.terminate()
        self.process.waitUntilExit()
    }
}

/// Every answer the load clients got, and what the 2xx ones acknowledged.
actor LoadLedger {
    /// One request and its outcome.
    struct Answer: Sendable {
        let route: String
        /// The HTTP status, or nil when no answer came (connection refused or reset).
        let status: Int?
        let startedAt: Date
        let seconds: Double
        let errorCode: String?
        let retryAfter: String?
    }

    private(set) var answers: [Answer] = []
    /// Session ids of acknowledged sign-ins.
    private(set) var sessions: [String] = []
    /// Refresh tokens issued by acknowledged sign-ins.
    private(set) var issuedTokens: [String] = []
    /// New refresh tokens returned by acknowledged refreshes.
    private(set) var refreshedTokens: [String] = []

    func record(_ answer: Answer) { self.answers.append(answer) }
    func acknowledgeSignin(session: String, token: String) {
        self.sessions.append(session)
        self.issuedTokens.append(token)
    }
    func acknowledgeRefresh(token: String) { self.refreshedTokens.append(token) }
}

/// The server the clients talk to right now; none while it is being restarted.
actor LoadTarget {
    private(set) var client: HTTPTestClient?
    private(set) var isStopped = false
    func point(at client: HTTPTestClient?) { self.client = client }
    func stop() { self.isStopped = true }
}

/// Drives `clients` concurrent clients doing dev sign-ins and refreshes until the target is stopped.
enum LoadDriver {
    static func run(clients: Int, target: LoadTarget, ledger: LoadLedger) async {
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<clients {
                group.addTask { await self.client(index, target: target, ledger: ledger) }
            }
        }
    }

    private static func client(_ index: Int, target: LoadTarget, ledger: LoadLedger) async {
        var token: String?
        var round = 0
        while await !target.isStopped {
            guard let client = await target.client else {
                try? await Task.sleep(for: .milliseconds(10))
                continue
            }
            round += 1
            if let current = token, round % 3 != 0 {
                token = await self.refresh(current, on: client, ledger: ledger).token
            } else {
                let subject = "load-\(index)-\(round % 7)"
                token = await self.signin(subject: subject, on: client, ledger: ledger).token ?? token
            }
        }
    }

    /// One sign-in; returns its outcome and, when it was acknowledged, its refresh token.
    static func signin(
        subject: String,
        on client: HTTPTestClient,
        ledger: LoadLedger
    ) async -> (outcome: LoadLedger.Answer, token: String?) {
        let (answer, outcome) = await self.send(client, ledger: ledger, route: "signin") {
            try await client.post("/v1/signin/dev", .object([("subject", .string(subject))]))
        }
        guard let answer, answer.status == 200, case .string(let session)? = answer.json["session_id"],
            case .string(let token)? = answer.json["refresh_token"]
        else { return (outcome, nil) }
        await ledger.acknowledgeSignin(session: session, token: token)
        return (outcome, token)
    }

    /// One refresh; returns its outcome and, when it was acknowledged, the new refresh token (after an unknown
    /// outcome the old one is dropped: presenting it again could be a reuse).
    static func refresh(
        _ token: String,
        on client: HTTPTestClient,
        ledger: LoadLedger
    ) async -> (outcome: LoadLedger.Answer, token: String?) {
        let (answer, outcome) = await self.send(client, ledger: ledger, route: "refresh") {
            try await client.post("/v1/token/refresh", .object([("refresh_token", .string(token))]))
        }
        guard let answer, answer.status == 200, case .string(let next)? = answer.json["refresh_token"] else {
            return (outcome, nil)
        }
        await ledger.acknowledgeRefresh(token: next)
        return (outcome, next)
    }

    /// `GET /readyz`.
    static func readiness(on client: HTTPTestClient, ledger: LoadLedger) async -> LoadLedger.Answer {
        await self.send(client, ledger: ledger, route: "readyz") { try await client.send("GET", "/readyz") }.1
    }

    /// Sends one request and records its outcome.
    static func send(
        _ client: HTTPTestClient,
        ledger: LoadLedger,
        route: String,
        _ request: () async throws -> HTTPTestClient.Answer
    ) async -> (HTTPTestClient.Answer?, LoadLedger.Answer) {
        let startedAt = Date()
        let answer = try? await request()
        var errorCode: String?
        if case .string(let code)? = answer?.json["error"] { errorCode = code }
        let outcome = LoadLedger.Answer(
            route: route,
            status: answer?.status,
            startedAt: startedAt,
            seconds: Date().timeIntervalSince(startedAt),
            errorCode: errorCode,
            retryAfter: answer?.header("Retry-After")
        )
        await ledger.record(outcome)
        return (answer, outcome)
    }
}

/// What the database holds of what the clients were told.
struct LedgerCheck {
    var acknowledgedSignins = 0
    var acknowledgedRefreshes = 0
    var missingSignins: Int64 = 0
    var missingIssuedTokens: Int64 = 0
    var missingRefreshes: Int64 = 0
    var events: Int64 = 0
    var minimumPosition: Int64 = 0
    var maximumPosition: Int64 = 0

    var lost: Int64 { self.missingSignins + self.missingIssuedTokens + self.missingRefreshes }
    var isGapless: Bool { self.events == 0 || (self.minimumPosition == 1 && self.maximumPosition == self.events) }

    /// Compares the ledger with the sealed events in the database at `conninfo`. An acknowledged event is
    /// committed; its seal follows within milliseconds, or longer on a loaded machine, so the comparison first
    /// waits (up to 30 s) for a running server's sealer to empty the queue. Events still queued after that are
    /// reported as missing.
    static func make(ledger: LoadLedger, conninfo: String) async throws -> LedgerCheck {
        let connection = try await Connection.connect(conninfo)
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline,
            try await connection.query("SELECT count(*) FROM authlog.unsealed_events").first?.decode(Int64.self, at: 0)
                ?? 0 > 0
        {
            try await Task.sleep(for: .milliseconds(20))
        }
        let sessions = await ledger.sessions
        let issued = await ledger.issuedTokens
        let refreshed = await ledger.refreshedTokens
        var check = LedgerCheck(acknowledgedSignins: sessions.count, acknowledgedRefreshes: refreshed.count)
        check.missingSignins = try await self.count(
            connection,
            """
            SELECT count(*) FROM (SELECT unnest(\(ArrayLiteral(sessions))::uuid[])
            EXCEPT SELECT session_id FROM authlog.events WHERE type = 'signin.succeeded') AS missing
            """
        )
        check.missingIssuedTokens = try await self.count(
            connection,
            """
            SELECT count(*) FROM (
                SELECT encode(sha256(convert_to(t, 'UTF8')), 'hex') FROM unnest(\(ArrayLiteral(issued))::text[]) t
            EXCEPT SELECT data->>'refresh_token_hash' FROM authlog.events WHERE type = 'token.issued') AS missing
            """
        )
        check.missingRefreshes = try await self.count(
            connection,
            """
            SELECT count(*) FROM (
                SELECT encode(sha256(convert_to(t, 'UTF8')), 'hex') FROM unnest(\(ArrayLiteral(refreshed))::text[]) t
            EXCEPT SELECT data->>'new_token_hash' FROM authlog.events WHERE type = 'token.refreshed') AS missing
            """
        )
        let row = try await connection.query(
            "SELECT count(*), coalesce(min(position), 0), coalesce(max(position), 0) FROM authlog.events"
        ).first
        check.events = try row?.decode(Int64.self, at: 0) ?? -1
        check.minimumPosition = try row?.decode(Int64.self, at: 1) ?? -1
        check.maximumPosition = try row?.decode(Int64.self, at: 2) ?? -1
        return check
    }

    private static func count(_ connection: Connection, _ query: SQLQuery) async throws -> Int64 {
        guard let row = try await connection.query(query).first else { return -1 }
        return try row.decode(Int64.self, at: 0)
    }
}

/// The text of a file, read with a plain file handle (Foundation's `String(contentsOfFile:)` leaks its buffer on
/// this toolchain, which LeakSanitizer reports).
func readText(atPath path: String) -> String {
    guard let handle = FileHandle(forReadingAtPath: path) else { return "" }
    defer { try? handle.close() }
    return String(decoding: (try? handle.readToEnd()) ?? Data(), as: UTF8.self)
}
