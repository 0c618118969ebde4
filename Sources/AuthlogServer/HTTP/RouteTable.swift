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
/// server's routes with `docs/openapi.yaml`.
public struct RouteTable {
    /// The router the routes are added to.
    public let router: Router<AppRequestContext>
    /// Every route added, in order.
    public private(set) var routes: [RouteDescription] = []

    init(router: Router<AppRequestContext>) { self.router = router }

    /// Adds a route on `path`, listed as `documented` (default: `path`), for a pattern such as `/tile/**` that
    /// `docs/openapi.yaml` writes as `/tile/{tile_path}`.
    mutating func add(
        _ method: HTTPRequest.Method,
        _ path: String,
        documentedAs documented: String? = nil,
        use handler: @escaping @Sendable (Request, AppRequestContext) async throws -> Response
    ) {
        self.router.on(RouterPath(path), method: method, use: handler)
        self.routes.append(RouteDescription(method: method.rawValue, path: documented ?? path))
    }
}
