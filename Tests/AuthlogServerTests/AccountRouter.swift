import AuthlogCore
import AuthlogCrypto
import AuthlogProviders
import AuthlogServer
import AuthlogTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Synchronization

/// The account routes (sign-in, tokens, `/v1/me`, provider callbacks) over the in-memory stores, driven by
/// Hummingbird's router test framework: no database and no socket.
struct AccountRouter {
    /// The introspection caller the configuration names.
    static let introspectionClient = (id: "resource-server", secret: "introspection-secret")
    /// Its HTTP Basic credentials.
    static var introspectionCredentials: String {
        Data("\(Self.introspectionClient.id):\(Self.introspectionClient.secret)".utf8).base64EncodedString()
    }

    let stores = InMemoryStores()
    let components: AccountComponents
    let routes: [RouteDescription]
    /// The rate limits, when the router was made with a policy.
    let limiter: RateLimiter?
    private let application: Application<RouterResponder<AppRequestContext>>

    /// The routes over empty stores, with the `dev` provider and one introspection client; `adjust` changes the
    /// configuration first; `limits` puts the per-address rate limits in front of the routes, their buckets
    /// refilling by `clock` when one is given (else by the system's uptime); access tokens are signed with
    /// `accessTokenKey` (a new key when nil).
    init(
        limits: RateLimitPolicy? = nil,
        clock: LimiterClock? = nil,
        accessTokenKey: PrivateKey? = nil,
        adjust: (inout ServerConfiguration) -> Void = { _ in }
    ) throws {
        var configuration = ServerConfiguration()
        configuration.development = true
        configuration.introspectionClients = [
            try JSONValue.members([
                "id": .string(Self.introspectionClient.id), "secret": .string(Self.introspectionClient.secret),
            ]).decode(ServerConfiguration.ClientCredentials.self)
        ]
        adjust(&configuration)
        let metrics = ServerMetrics()
        self.limiter = limits.map { policy in
            guard let clock else { return RateLimiter(policy: policy, metrics: metrics) }
            return RateLimiter(policy: policy, metrics: metrics, uptime: { clock.now })
        }
        self.components = try AccountComponents(
            configuration: configuration,
            store: self.stores.events,
            state: self.stores.accountState,
            metrics: metrics,
            accessTokenKey: try accessTokenKey ?? PrivateKey.generate(for: .es256),
            fetcher: NoNetwork()
        )
        let (router, routes) = try buildAccountRouter(components: self.components, limiter: self.limiter)
        self.routes = routes
        self.application = Application(router: router)
    }

    /// Runs `body` with a client of the routes.
    func run(_ body: @Sendable (RouterClient) async throws -> Void) async throws {
        try await self.application.test(.router) { client in try await body(RouterClient(client: client)) }
    }

    /// The recorded events' types, in the order they were appended.
    var eventTypes: [String] { self.stores.events.events.map(\.type.rawValue) }
}

/// A clock for the rate limiters that moves only when the test moves it, so a bucket refills by exactly what
/// the test says however slowly a loaded machine runs the requests between.
final class LimiterClock: Sendable {
    private let seconds = Mutex(1_000.0)

    /// The clock's reading in seconds.
    var now: Double { self.seconds.withLock { $0 } }

    /// Moves the clock on by `seconds`.
    func advance(by seconds: Double) { self.seconds.withLock { $0 += seconds } }
}

/// Sends requests to the routes and reads their answers.
struct RouterClient: Sendable {
    let client: any TestClientProtocol

    /// Sends `body` (JSON unless `contentType` says otherwise) with `headers`.
    func send(
        _ method: HTTPRequest.Method,
        _ path: String,
        body: String? = nil,
        contentType: String = "application/json",
        headers: HTTPFields = [:]
    ) async throws -> RouteAnswer {
        var fields = headers
        if body != nil { fields[.contentType] = contentType }
        let response = try await self.client.execute(
            uri: path,
            method: method,
            headers: fields,
            body: body.map { ByteBuffer(string: $0) }
        )
        return RouteAnswer(status: response.status.code, headers: response.headers, body: Array(buffer: response.body))
    }

    /// Signs `subject` in with the `dev` provider and returns the answer's JSON.
    func signIn(_ subject: String) async throws -> JSONValue {
        let answer = try await self.send(.post, "/v1/signin/dev", body: #"{"subject": "\#(subject)"}"#)
        guard answer.status == 200 else { throw RouteFailure(answer: answer) }
        return answer.json
    }

    /// The `Authorization` header for an access token.
    static func bearer(_ token: String?) -> HTTPFields { [.authorization: "Bearer \(token ?? "")"] }
}

/// One answer of the routes.
struct RouteAnswer: Sendable {
    let status: Int
    let headers: HTTPFields
    let body: [UInt8]

    /// The body as JSON, or `null` when it is not JSON.
    var json: JSONValue { (try? JSONParser().parse(self.body)) ?? .null }

    /// A string member of the JSON body.
    func string(_ name: String) -> String? { self.json[name]?.stringValue }
}

/// A request that should have succeeded did not.
struct RouteFailure: Error, CustomStringConvertible {
    let answer: RouteAnswer
    var description: String { "HTTP \(self.answer.status): \(String(decoding: self.answer.body, as: UTF8.self))" }
}

/// The outbound side of a configuration with no real provider: any call is a test failure, answered as an
/// unreachable provider.
struct NoNetwork: HTTPFetching {
    func fetch(_ request: OutboundRequest) async throws(ProviderError) -> OutboundResponse {
        throw ProviderError(.providerUnavailable, "no network in the HTTP-shape tests")
    }
}
