import AuthlogAccounts
public import Hummingbird

/// One registered route, as `docs/openapi.yaml` names it (`/v1/signin/{provider}`).
public struct RouteDescription: Hashable, Sendable, CustomStringConvertible {
    /// `GET`, `POST`, …
    public let method: String
    /// The path pattern.
    public let path: String

    public var description: String { "\(self.method) \(self.path)" }
}

/// Registers routes on the router and remembers each one, so that the OpenAPI test can compare the
/// server's routes with `docs/openapi.yaml`. With a ``RateLimiter``, each route of a ``LimitedRoute`` group
/// takes a token from its client address's bucket before its handler runs.
public struct RouteTable {
    /// The router the routes are added to.
    public let router: Router<AppRequestContext>
    /// Every route added, in order.
    public private(set) var routes: [RouteDescription] = []
    /// The per-address limits, when any.
    let limiter: RateLimiter?
    /// How a request's client address is found (through the trusted proxies).
    let requestMetadata: RequestMetadataReader
    /// The largest body read from a refused request before its answer (`request_body_limit`).
    let bodyLimit: Int

    init(
        router: Router<AppRequestContext>,
        limiter: RateLimiter? = nil,
        trustedProxies: TrustedProxies,
        bodyLimit: Int = ConfigurationDefaults.requestBodyLimit
    ) {
        self.router = router
        self.limiter = limiter
        self.requestMetadata = RequestMetadataReader(trustedProxies: trustedProxies)
        self.bodyLimit = bodyLimit
    }

    /// Adds a route on `path`, listed as `documented` (default: `path`), for a pattern such as `/tile/**` that
    /// `docs/openapi.yaml` writes as `/tile/{tile_path}`.
    mutating func add(
        _ method: HTTPRequest.Method,
        _ path: String,
        documentedAs documented: String? = nil,
        use handler: @escaping @Sendable (Request, AppRequestContext) async throws -> Response
    ) {
        let description = RouteDescription(method: method.rawValue, path: documented ?? path)
        if let limiter = self.limiter, let group = LimitedRoute.of(method: description.method, path: description.path) {
            let metadata = self.requestMetadata
            let bodyLimit = self.bodyLimit
            self.router.on(RouterPath(path), method: method) { request, context in
                var context = context
                context.clientAddress = metadata.clientAddress(of: request, context: context)
                do {
                    try limiter.admit(group, address: context.clientAddress, requestID: context.requestID)
                } catch {
                    // Refused before the handler read anything: the body is read (up to the limit) so that the
                    // connection stays usable for the client's next request. Then the answer is held, so that
                    // a client ignoring Retry-After is slowed to its rate, and one that keeps at it to the maximum.
                    _ = try? await request.body.collect(upTo: bodyLimit)
                    try? await Task.sleep(for: limiter.refusalDelay(group, address: context.clientAddress))
                    throw error
                }
                do {
                    return try await handler(request, context)
                } catch let error as ServiceError where error.code == "rate_limited" {
                    // A limit the handler took (a token family, an API key) after reading the body.
                    try? await Task.sleep(for: limiter.refusalDelay(group))
                    throw error
                }
            }
        } else {
            self.router.on(RouterPath(path), method: method, use: handler)
        }
        self.routes.append(description)
    }
}
