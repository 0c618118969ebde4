import AuthlogCore
import AuthlogCrypto
import AuthlogPostgres
import AuthlogProviders
import AuthlogServer
import AuthlogStore
import AuthlogTesting
import Foundation

/// The client ids the fake providers' tokens are made for.
enum Fixture {
    static let appleClient = "com.example.app"
    static let appleIssuer = "https://appleid.apple.com"
    static let googleClient = "google-client.apps.example.com"
    static let gitlabClient = "gitlab-application-id"
    static let kakaoAppID = "123456"
    static let kakaoAppKey = "kakao-native-app-key"
    static let githubClient = "gh-client-id"
    static let githubSecret = "gh-client-secret"
    static let firebaseProject = "demo-project"
    static let introspectionClient = (id: "resource-server", secret: "introspection-secret")
    static let kakaoAdminKey = "kakao-admin-key"
    static let dataKey = Array(repeating: UInt8(7), count: 32)
}

/// One fake provider server per provider, each a real HTTP server on 127.0.0.1.
struct FakeProviders {
    let apple: FakeIdentityProvider
    let google: FakeIdentityProvider
    let gitlab: FakeIdentityProvider
    let kakao: FakeIdentityProvider
    let github: FakeIdentityProvider
    let firebase: FakeIdentityProvider

    static func start() async throws -> FakeProviders {
        let providers = FakeProviders(
            apple: try await .start(),
            google: try await .start(),
            gitlab: try await .start(),
            kakao: try await .start(),
            github: try await .start(),
            firebase: try await .start()
        )
        providers.github.setGitHubClient(id: Fixture.githubClient, secret: Fixture.githubSecret)
        providers.kakao.setKakaoAdminKey(Fixture.kakaoAdminKey)
        return providers
    }

    func stop() async {
        for provider in [self.apple, self.google, self.gitlab, self.kakao, self.github, self.firebase] {
            await provider.stop()
        }
    }

    /// A configuration with every provider pointed at its fake, the dev provider on, 127.0.0.1 trusted
    /// as a proxy and the rate limits off — written as the JSON file an operator would write, then decoded.
    func configuration() throws -> ServerConfiguration {
        let appleKey = try PrivateKey.generate(for: .es256).pemRepresentation()
        let document: JSONValue = .members([
            "development": .bool(true),
            "trusted_proxies": .array([.string("127.0.0.1")]),
            // Suites send hundreds of requests a second from one address; the limits' own tests turn them on.
            "rate_limits": .members(["enabled": .bool(false)]),
            "data_key": .string(Base64URL.encode(Fixture.dataKey)),
            "introspection_clients": .array([
                .members([
                    "id": .string(Fixture.introspectionClient.id),
                    "secret": .string(Fixture.introspectionClient.secret),
                ])
            ]),
            "providers": .members([
                "apple": .members([
                    "client_ids": .array([.string(Fixture.appleClient)]), "team_id": .string("TEAM123456"),
                    "key_id": .string("KEY1234567"), "private_key": .string(appleKey),
                    "jwks_url": .string(self.apple.baseURL + "/jwks"),
                    "token_url": .string(self.apple.baseURL + "/token"),
                    "revoke_url": .string(self.apple.baseURL + "/auth/revoke"),
                ]),
                "google": .members([
                    "client_ids": .array([.string(Fixture.googleClient)]),
                    "jwks_url": .string(self.google.baseURL + "/jwks"),
                ]),
                "gitlab": .members([
                    "issuer": .string(self.gitlab.baseURL), "client_ids": .array([.string(Fixture.gitlabClient)]),
                    "client_secret": .string("gl-secret"),
                ]),
                "kakao": .members([
                    "app_id": .string(Fixture.kakaoAppID), "app_keys": .array([.string(Fixture.kakaoAppKey)]),
                    "jwks_url": .string(self.kakao.baseURL + "/jwks"),
                    "token_url": .string(self.kakao.baseURL + "/token"),
                    "token_info_url": .string(self.kakao.baseURL + "/v1/user/access_token_info"),
                    "user_url": .string(self.kakao.baseURL + "/v2/user/me"),
                    "unlink_url": .string(self.kakao.baseURL + "/v1/user/unlink"),
                    "admin_key": .string(Fixture.kakaoAdminKey),
                ]),
                "github": .members([
                    "client_id": .string(Fixture.githubClient), "client_secret": .string(Fixture.githubSecret),
                    "token_url": .string(self.github.baseURL + "/login/oauth/access_token"),
                    "api_url": .string(self.github.baseURL),
                ]),
                "firebase": .members([
                    "project_id": .string(Fixture.firebaseProject),
                    "jwks_url": .string(self.firebase.baseURL + "/jwks"),
                ]),
            ]),
        ])
        return try document.decode(ServerConfiguration.self)
    }
}

/// authlog's server on a fresh test database, with fake providers, reached over real HTTP.
struct ServerHarness {
    let database: TestDatabase
    let providers: FakeProviders
    let runner: ServiceRunner
    let client: HTTPTestClient
    let routes: [RouteDescription]
    /// The server's services, for work `serve` runs in the background (sweeps, revocation retries).
    let components: ServerComponents

    static func start(
        adjust: (inout ServerConfiguration) -> Void = { _ in },
        rateLimitUptime: (@Sendable () -> Double)? = nil
    ) async throws -> ServerHarness {
        let database = try await TestDatabase.make()
        let providers = try await FakeProviders.start()
        var configuration = try providers.configuration()
        adjust(&configuration)
        let pool = ConnectionPool(conninfo: database.conninfo, maximumConnections: 8)
        let components = try ServerComponents(
            configuration: configuration,
            pool: pool,
            accessTokenKey: try PrivateKey.generate(for: .es256),
            fetcher: AsyncHTTPFetcher(timeout: .seconds(90)),
            rateLimitUptime: rateLimitUptime
        )
        let (router, routes) = try buildRouter(components: components)
        let runner = try await ServiceRunner.start(router: router)
        return ServerHarness(
            database: database,
            providers: providers,
            runner: runner,
            client: HTTPTestClient(baseURL: runner.baseURL),
            routes: routes,
            components: components
        )
    }

    /// Records what the rate limits and the operator routes refused, as `serve`'s background service does
    /// every second; `everything` closes every open window, as at shutdown.
    func flushRefusals(everything: Bool = true) async throws {
        try await self.components.limiter.recorder.flush(into: self.components.store, everything: everything)
    }

    func stop() async {
        await self.runner.stop()
        await self.providers.stop()
    }

    /// The rate limits as a configuration without a `rate_limits` section has them (the harness turns them
    /// off): for the tests that hold a promise under the defaults.
    static func defaultLimits(_ configuration: inout ServerConfiguration) { configuration.rateLimits = nil }

    /// Headers of a request from an app behind our proxy.
    static let appHeaders = [("User-Agent", "ExampleApp/1.0 (iPhone)"), ("X-Forwarded-For", "203.0.113.7")]

    func post(
        _ path: String,
        _ body: JSONValue,
        headers: [(String, String)] = ServerHarness.appHeaders
    ) async throws
        -> HTTPTestClient.Answer
    {
        try await self.client.post(path, body, headers: headers)
    }

    /// The stored events, in position order, once every committed one is sealed.
    func events() async throws -> [StoredEvent] {
        try await self.components.store.sealPending()
        let rows = try await self.database.connect().query(
            """
            SELECT type, stream, provider, user_id, session_id, host(ip), user_agent, outcome, reason, request_id,
                   client_id, data
            FROM authlog.events ORDER BY position
            """
        )
        return try rows.rows.map { row in
            StoredEvent(
                type: try row.decode(String.self, at: 0),
                stream: try row.decode(String.self, at: 1),
                provider: try row.decode(String?.self, at: 2),
                userID: try row.decode(UUID?.self, at: 3),
                sessionID: try row.decode(UUID?.self, at: 4),
                ip: try row.decode(String?.self, at: 5),
                userAgent: try row.decode(String?.self, at: 6),
                outcome: try row.decode(String.self, at: 7),
                reason: try row.decode(String?.self, at: 8),
                requestID: try row.decode(String?.self, at: 9),
                clientID: try row.decode(String?.self, at: 10),
                data: try row.decode(JSONValue.self, at: 11)
            )
        }
    }

    /// One integer from SQL.
    func count(_ query: SQLQuery) async throws -> Int64 {
        try await self.components.store.sealPending()
        return try await self.database.scalar(query)
    }
}

/// One stored event's envelope columns.
struct StoredEvent {
    let type: String
    let stream: String
    let provider: String?
    let userID: UUID?
    let sessionID: UUID?
    let ip: String?
    let userAgent: String?
    let outcome: String
    let reason: String?
    let requestID: String?
    let clientID: String?
    let data: JSONValue
}

extension HTTPTestClient.Answer {
    /// A string member of the JSON body.
    func string(_ name: String) -> String? { self.json[name]?.stringValue }
}

extension ServerHarness {
    /// Starts a harness, runs `body` with it and stops it, also when `body` fails. With `rateLimitUptime` the
    /// rate limits' buckets refill by that clock instead of the system's.
    static func run(
        adjust: (inout ServerConfiguration) -> Void = { _ in },
        rateLimitUptime: (@Sendable () -> Double)? = nil,
        _ body: (ServerHarness) async throws -> Void
    ) async throws {
        let harness = try await ServerHarness.start(adjust: adjust, rateLimitUptime: rateLimitUptime)
        do {
            try await body(harness)
        } catch {
            await harness.stop()
            throw error
        }
        await harness.stop()
    }
}
