import AuthlogCore
import AuthlogCrypto
import AuthlogTesting
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A real `authlog serve --dev` process on a fresh test database, with every provider pointed at one fake
/// identity provider, for the client to talk to over real HTTP.
struct ClientTestServer {
    static let appleClient = "com.example.client"
    static let googleClient = "client.apps.googleusercontent.com"
    static let gitlabClient = "gitlab-app"
    static let githubClient = "gh-client"
    static let kakaoAppID = "424242"
    static let kakaoAppKey = "kakao-native-key"
    static let firebaseProject = "client-project"

    let database: TestDatabase
    let fake: FakeIdentityProvider
    let process: Process
    let baseURL: URL
    let logFile: String
    /// Whether ``stop()`` stops the fake provider too (it was started for this server, not given to it).
    let ownsFake: Bool

    /// Starts the fake provider and the server; `extra` members are added to the configuration file.
    /// A second server of the same log is started on `database` (a copy of the first one's) with the first
    /// one's `fake`, which it then does not stop.
    static func start(
        extra: [String: JSONValue] = [:],
        database given: TestDatabase? = nil,
        fake shared: FakeIdentityProvider? = nil
    ) async throws -> ClientTestServer {
        let database: TestDatabase
        if let given { database = given } else { database = try await TestDatabase.make() }
        let fake: FakeIdentityProvider
        if let shared { fake = shared } else { fake = try await FakeIdentityProvider.start() }
        fake.setGitHubClient(id: Self.githubClient, secret: "gh-secret")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("authlog-client-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var members: [String: JSONValue] = [
            "development": .bool(true),
            // The fake providers share the machine with the other suites' servers: no 502 for a slow answer.
            "provider_timeout_seconds": .number("60"),
            "data_key": .string(Base64URL.encode(try SecureRandom.bytes(count: 32))),
            "providers": try Self.providers(fake),
        ]
        members.merge(extra) { _, given in given }
        let configuration = "\(folder)/authlog.json"
        try Data(JSONValue.object(members.map { (name: $0.key, value: $0.value) }).canonicalBytes).write(
            to: URL(fileURLWithPath: configuration)
        )
        let logFile = "\(folder)/serve.log"
        _ = FileManager.default.createFile(atPath: logFile, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logFile))
        defer { try? log.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CLIProcess.executable)
        process.arguments = ["serve", "--dev", "--port", "0", "--config", configuration]
        var environment = ProcessInfo.processInfo.environment
        environment["AUTHLOG_DATABASE_URL"] = database.conninfo
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = log
        process.standardError = log
        try process.run()
        guard let port = try await ListeningAddress.port(loggedIn: logFile, by: process, within: .seconds(60)),
            let baseURL = URL(string: "http://127.0.0.1:\(port)")
        else {
            process.terminate()
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "no server; see \(logFile)"])
        }
        return ClientTestServer(
            database: database,
            fake: fake,
            process: process,
            baseURL: baseURL,
            logFile: logFile,
            ownsFake: shared == nil
        )
    }

    /// Stops the server, and the fake provider when it was started for this server.
    func stop() async {
        self.process.terminate()
        await ChildProcess.waitForExit(self.process)
        if self.ownsFake { await self.fake.stop() }
    }

    private static func providers(_ fake: FakeIdentityProvider) throws -> JSONValue {
        let base = fake.baseURL
        return .members([
            "apple": .members([
                "client_ids": .array([.string(Self.appleClient)]), "team_id": .string("TEAM123456"),
                "key_id": .string("KEY1234567"),
                "private_key": .string(try PrivateKey.generate(for: .es256).pemRepresentation()),
                "jwks_url": .string(base + "/jwks"), "token_url": .string(base + "/token"),
                "revoke_url": .string(base + "/auth/revoke"),
            ]),
            "google": .members([
                "client_ids": .array([.string(Self.googleClient)]), "jwks_url": .string(base + "/jwks"),
            ]),
            "gitlab": .members([
                "issuer": .string(base), "client_ids": .array([.string(Self.gitlabClient)]),
                "client_secret": .string("gl-secret"),
            ]),
            "kakao": .members([
                "app_id": .string(Self.kakaoAppID), "app_keys": .array([.string(Self.kakaoAppKey)]),
                "jwks_url": .string(base + "/jwks"), "token_url": .string(base + "/token"),
                "token_info_url": .string(base + "/v1/user/access_token_info"),
                "user_url": .string(base + "/v2/user/me"), "unlink_url": .string(base + "/v1/user/unlink"),
                "admin_key": .string("kakao-admin"),
            ]),
            "github": .members([
                "client_id": .string(Self.githubClient), "client_secret": .string("gh-secret"),
                "token_url": .string(base + "/login/oauth/access_token"), "api_url": .string(base),
            ]),
            "firebase": .members(["project_id": .string(Self.firebaseProject), "jwks_url": .string(base + "/jwks")]),
        ])
    }
}

extension ClientTestServer {
    /// Runs `body` with a started server and stops the server afterwards, whether `body` threw or not.
    static func run(
        extra: [String: JSONValue] = [:],
        _ body: (ClientTestServer) async throws -> Void
    ) async throws {
        let server = try await Self.start(extra: extra)
        do {
            try await body(server)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
