public import AuthlogCore
public import AuthlogCrypto
import AuthlogProviders
import Foundation
import Hummingbird
import NIOCore
import Synchronization

/// A fake identity provider for tests and benchmarks: a real HTTP server on 127.0.0.1 with RSA keys
/// generated at start-up. It serves what Apple, Google, GitLab (OIDC discovery), Kakao, GitHub and
/// Firebase serve, as far as authlog calls them:
///
/// - `GET /jwks` (counted; `Cache-Control` settable), `GET /.well-known/openid-configuration`
/// - `POST /token` (code exchange returning an ID token), `POST /login/oauth/access_token` (GitHub: an
///   unknown code is answered with HTTP 200 and `{"error": "bad_verification_code"}`)
/// - GitHub: `GET /user`, `GET /user/emails`, `POST /applications/{client_id}/token`
/// - Kakao: `GET /v1/user/access_token_info`, `GET /v2/user/me`
///
/// - Revocation: Apple `POST /auth/revoke`, GitHub `DELETE /applications/{client_id}/grant`, Kakao
///   `POST /v1/user/unlink` (recorded, see ``calls(to:)``; ``setFailure(_:forPath:)`` makes one fail)
///
/// ``isDown`` makes every route answer 503 (calls to the revocation routes are still recorded).
public final class FakeIdentityProvider: Sendable {
    /// A user the provider knows by access token.
    public struct User: Sendable {
        /// The provider's numeric user id.
        public var id: Int64
        /// The app the user's access tokens were issued to.
        public var appID: String
        /// The user's email, if any.
        public var email: String?

        /// Creates a user.
        public init(id: Int64, appID: String, email: String? = nil) {
            self.id = id
            self.appID = appID
            self.email = email
        }
    }

    struct State {
        var keys: [(kid: String, key: PrivateKey)]
        var calls: [RecordedCall] = []
        var failures: [String: Failure] = [:]
        var kakaoAdminKey: String?
        var jwksFetches = 0
        var isDown = false
        var cacheControl: String? = "max-age=3600"
        var codes: [String: [(name: String, value: JSONValue)]] = [:]
        var accessTokens: [String: User] = [:]
        var githubClient: (id: String, secret: String)?
    }

    let state: Mutex<State>
    private let runnerBox = Mutex<ServiceRunner?>(nil)

    /// The signing key's `kid`.
    public let kid: String

    private init(key: PrivateKey, kid: String) {
        self.kid = kid
        self.state = Mutex(State(keys: [(kid, key)]))
    }

    /// Starts a provider with one fresh 2048-bit RSA key.
    /// - Throws: when the key cannot be made or the server cannot start.
    public static func start() async throws -> FakeIdentityProvider {
        let provider = FakeIdentityProvider(key: try PrivateKey.generate(for: .rs256), kid: "key-1")
        let runner = try await ServiceRunner.start(router: provider.makeRouter())
        provider.runnerBox.withLock { $0 = runner }
        return provider
    }

    /// `http://127.0.0.1:<port>`.
    public var baseURL: String { self.runnerBox.withLock { $0?.baseURL ?? "" } }

    /// Stops the server.
    public func stop() async {
        let runner = self.runnerBox.withLock { $0 }
        await runner?.stop()
    }

    /// How often `/jwks` was fetched.
    public var jwksFetches: Int { self.state.withLock { $0.jwksFetches } }

    /// Whether every route answers 503.
    public var isDown: Bool {
        get { self.state.withLock { $0.isDown } }
        set { self.state.withLock { $0.isDown = newValue } }
    }

    /// The `Cache-Control` header of `/jwks` answers (`nil`: none).
    public var cacheControl: String? {
        get { self.state.withLock { $0.cacheControl } }
        set { self.state.withLock { $0.cacheControl = newValue } }
    }

    /// Replaces the key material under `kid` (a rotation that keeps the kid), or adds a key.
    /// - Throws: when the key cannot be made.
    @discardableResult
    public func rotateKey(kid: String) throws -> PrivateKey {
        let key = try PrivateKey.generate(for: .rs256)
        self.state.withLock { state in
            state.keys.removeAll { $0.kid == kid }
            state.keys.append((kid, key))
        }
        return key
    }

    /// The private key published under `kid`, if any.
    public func key(kid: String) -> PrivateKey? { self.state.withLock { $0.keys.first { $0.kid == kid }?.key } }

    /// Signs `claims` with this provider's key (or `key`), header `alg` RS256 and `kid`.
    /// - Throws: when signing fails.
    public func sign(
        _ claims: [(name: String, value: JSONValue)],
        kid: String? = nil,
        key: PrivateKey? = nil,
        extraHeader: [(name: String, value: JSONValue)] = []
    ) throws -> String {
        let kid = kid ?? self.kid
        guard let signingKey = key ?? self.key(kid: kid) ?? self.key(kid: self.kid) else {
            throw CryptoError(.invalidKey, "no key")
        }
        return try JWSSigner(key: signingKey, kid: kid).sign(.object(claims), extraHeader: extraHeader)
    }

    /// Makes an authorization code whose exchange returns an ID token with `claims` (and a refresh token).
    public func registerCode(_ code: String, idTokenClaims: [(name: String, value: JSONValue)]) {
        self.state.withLock { $0.codes[code] = idTokenClaims }
    }

    /// Makes an access token known to the GitHub and Kakao APIs.
    public func registerAccessToken(_ token: String, for user: User) {
        self.state.withLock { $0.accessTokens[token] = user }
    }

    /// The OAuth app GitHub's `/applications/{client_id}/token` accepts (Basic authentication).
    public func setGitHubClient(id: String, secret: String) {
        self.state.withLock { $0.githubClient = (id, secret) }
    }

    /// Standard claims for an ID token from this provider, valid now.
    public static func claims(
        issuer: String,
        audience: JSONValue,
        subject: String,
        nonce: String? = nil,
        issuedAt: Int64? = nil,
        lifetime: Int64 = 600,
        extra: [(name: String, value: JSONValue)] = []
    ) -> [(name: String, value: JSONValue)] {
        let now = issuedAt ?? Int64(Date().timeIntervalSince1970)
        var claims: [(name: String, value: JSONValue)] = [
            ("iss", .string(issuer)), ("aud", audience), ("sub", .string(subject)), ("iat", .number(String(now))),
            ("exp", .number(String(now + lifetime))), ("auth_time", .number(String(now))),
        ]
        if let nonce { claims.append(("nonce", .string(nonce))) }
        return claims + extra
    }

    private func makeRouter() -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: RecordingMiddleware(provider: self))
        router.add(middleware: DownMiddleware(provider: self))
        self.addOpenIDRoutes(to: router)
        self.addGitHubRoutes(to: router)
        self.addKakaoRoutes(to: router)
        self.addRevocationRoutes(to: router)
        return router
    }

    /// The keys, the discovery document and the code-for-tokens endpoint of an OpenID provider.
    private func addOpenIDRoutes(to router: Router<BasicRequestContext>) {
        router.get("/jwks") { _, _ in
            let (keys, cacheControl) = self.state.withLock { state in
                state.jwksFetches += 1
                return (state.keys, state.cacheControl)
            }
            var jwks: [JSONValue] = []
            for (kid, key) in keys { jwks.append(try JWK(key: try key.publicKey(), kid: kid).json()) }
            var response = Self.json(.object([("keys", .array(jwks))]))
            if let cacheControl { response.headers[.cacheControl] = cacheControl }
            return response
        }
        router.get("/.well-known/openid-configuration") { _, _ in
            Self.json(
                .object([
                    ("issuer", .string(self.baseURL)), ("jwks_uri", .string(self.baseURL + "/jwks")),
                    ("token_endpoint", .string(self.baseURL + "/token")),
                ])
            )
        }
        router.post("/token") { request, _ in
            let fields = try await Self.form(request)
            guard let code = fields["code"], let claims = self.state.withLock({ $0.codes.removeValue(forKey: code) })
            else {
                return Self.json(.object([("error", .string("invalid_grant"))]), status: .badRequest)
            }
            return Self.json(
                .object([
                    ("access_token", .string("fake-access")), ("token_type", .string("bearer")),
                    ("expires_in", .number("3600")), ("refresh_token", .string("fake-provider-refresh-\(code)")),
                    ("id_token", .string(try self.sign(claims))),
                ])
            )
        }
    }

    /// GitHub's code exchange, user and emails, and its token check for an OAuth app.
    private func addGitHubRoutes(to router: Router<BasicRequestContext>) {
        router.post("/login/oauth/access_token") { request, _ in
            let fields = try await Self.form(request)
            guard let code = fields["code"], self.state.withLock({ $0.codes.removeValue(forKey: code) }) != nil else {
                return Self.json(.object([("error", .string("bad_verification_code"))]))
            }
            return Self.json(.object([("access_token", .string("gho_\(code)")), ("token_type", .string("bearer"))]))
        }
        router.get("/user") { request, _ in
            guard let user = self.user(request) else { return Self.json(.object([]), status: .unauthorized) }
            return Self.json(.object([("id", .number(String(user.id))), ("login", .string("octo\(user.id)"))]))
        }
        router.get("/user/emails") { request, _ in
            guard let user = self.user(request) else { return Self.json(.object([]), status: .unauthorized) }
            return Self.json(
                .array([
                    .object([
                        ("email", .string(user.email ?? "u\(user.id)@example.com")), ("primary", .bool(true)),
                        ("verified", .bool(true)),
                    ])
                ])
            )
        }
        router.post("/applications/{client_id}/token") { request, context in
            let clientID = context.parameters.get("client_id") ?? ""
            let client = self.state.withLock { $0.githubClient }
            let expected = "Basic " + Data("\(client?.id ?? ""):\(client?.secret ?? "")".utf8).base64EncodedString()
            guard client?.id == clientID, request.headers[.authorization] == expected else {
                return Self.json(.object([]), status: .unauthorized)
            }
            let body = try JSONParser().parse(Array(buffer: try await request.body.collect(upTo: 65536)))
            guard let token = body["access_token"]?.stringValue,
                let user = self.state.withLock({ $0.accessTokens[token] })
            else { return Self.json(.object([("message", .string("Not Found"))]), status: .notFound) }
            return Self.json(
                .object([
                    ("app", .object([("client_id", .string(user.appID))])),
                    ("user", .object([("id", .number(String(user.id)))])),
                ])
            )
        }
    }

    /// Kakao's token information and user profile.
    private func addKakaoRoutes(to router: Router<BasicRequestContext>) {
        router.get("/v1/user/access_token_info") { request, _ in
            guard let user = self.user(request) else {
                return Self.json(.object([("code", .number("-401"))]), status: .unauthorized)
            }
            return Self.json(
                .object([
                    ("id", .number(String(user.id))), ("app_id", .number(user.appID)), ("expires_in", .number("3600")),
                ])
            )
        }
        router.get("/v2/user/me") { request, _ in
            guard let user = self.user(request) else {
                return Self.json(.object([("code", .number("-401"))]), status: .unauthorized)
            }
            return Self.json(
                .object([
                    ("id", .number(String(user.id))),
                    (
                        "kakao_account",
                        .object([
                            ("email", .string(user.email ?? "k\(user.id)@example.com")),
                            ("is_email_valid", .bool(true)),
                            ("is_email_verified", .bool(true)),
                        ])
                    ),
                ])
            )
        }
    }

    private func user(_ request: Request) -> User? {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else { return nil }
        return self.state.withLock { $0.accessTokens[String(header.dropFirst(7))] }
    }

    static func form(_ request: Request) async throws -> [String: String] {
        let body = try await request.body.collect(upTo: 65536)
        let fields = FormEncoding.decode(String(buffer: body)) ?? []
        return Dictionary(fields.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status,
            headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: value.canonicalBytes))
        )
    }

    private struct DownMiddleware: RouterMiddleware {
        let provider: FakeIdentityProvider

        func handle(
            _ request: Request,
            context: BasicRequestContext,
            next: (Request, BasicRequestContext) async throws -> Response
        ) async throws -> Response {
            if self.provider.isDown { return FakeIdentityProvider.json(.object([]), status: .serviceUnavailable) }
            return try await next(request, context)
        }
    }
}
