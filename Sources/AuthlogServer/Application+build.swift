import AuthlogAccounts
import AuthlogCore
import AuthlogStore
public import Hummingbird
import HummingbirdCore
public import Logging

/// A router with the account routes only (sign-in, tokens, `/v1/me`, provider callbacks), over any store:
/// what the HTTP-shape tests run on `app.test(.router)` with the in-memory stores; `limiter` applies the
/// per-address rate limits.
public func buildAccountRouter(
    components: AccountComponents,
    limiter: RateLimiter? = nil
) throws -> (router: Router<AppRequestContext>, routes: [RouteDescription]) {
    let router = Router(context: AppRequestContext.self)
    router.add(middleware: RequestIDMiddleware(metrics: components.metrics))
    router.add(middleware: DPoPMiddleware(components: components, recorder: limiter?.recorder))
    var table = RouteTable(
        router: router,
        limiter: limiter,
        trustedProxies: components.trustedProxies,
        bodyLimit: components.bodyLimit
    )
    try registerAccountRoutes(components: components, on: &table)
    return (router, table.routes)
}

/// Registers the routes whose rules live in `AuthlogAccounts`, and the discovery documents of its tokens.
func registerAccountRoutes(components: AccountComponents, on table: inout RouteTable) throws {
    let body = RequestBodyReader(limit: components.bodyLimit)
    let metadata = RequestMetadataReader(trustedProxies: components.trustedProxies)
    SigninController(service: components.signin, body: body, requestMetadata: metadata).register(on: &table)
    TokenController(
        service: table.limiter.map { components.tokens.gated(by: $0) } ?? components.tokens,
        body: body,
        requestMetadata: metadata,
        introspectionClients: components.introspectionClients
    ).register(on: &table)
    MeController(service: components.accounts, body: body, requestMetadata: metadata).register(on: &table)
    ProviderCallbackController(service: components.notifications, body: body, requestMetadata: metadata)
        .register(on: &table)
    try DiscoveryController(tokens: components.dependencies.accessTokens).register(on: &table)
}

/// The router with every route of the server, and the list of those routes.
public func buildRouter(
    components: ServerComponents
) throws -> (router: Router<AppRequestContext>, routes: [RouteDescription]) {
    let router = Router(context: AppRequestContext.self)
    router.add(middleware: RequestIDMiddleware(metrics: components.metrics, writes: components.writes))
    router.add(middleware: DPoPMiddleware(components: components.account, recorder: components.limiter.recorder))
    var table = RouteTable(
        router: router,
        limiter: components.limiter,
        trustedProxies: components.account.trustedProxies,
        bodyLimit: components.account.bodyLimit
    )
    try registerAccountRoutes(components: components.account, on: &table)
    let body = RequestBodyReader(limit: components.account.bodyLimit)
    let metadata = RequestMetadataReader(trustedProxies: components.account.trustedProxies)
    LogController(
        access: components.operatorAccess,
        requestMetadata: metadata,
        metrics: components.metrics,
        recorder: components.limiter.recorder
    )
    .register(on: &table)
    ReceiptController(
        tokens: components.account.tokens,
        access: components.operatorAccess,
        pool: components.store.pool,
        checkpointSeconds: components.checkpoints.everySeconds,
        witnessPolicy: components.witnesses.policy,
        witnessSeconds: Int(components.witnesses.interval.components.seconds),
        requestMetadata: metadata
    )
    .register(on: &table)
    ReceiptBatchController(
        tokens: components.account.tokens,
        pool: components.store.pool,
        checkpointSeconds: components.checkpoints.everySeconds,
        witnessPolicy: components.witnesses.policy,
        witnessSeconds: Int(components.witnesses.interval.components.seconds)
    )
    .register(on: &table)
    EventsController(
        access: components.operatorAccess,
        store: components.store,
        body: body,
        requestMetadata: metadata
    )
    .register(on: &table)
    AdminController(
        access: components.operatorAccess,
        dependencies: components.account.dependencies,
        requestMetadata: metadata
    )
    .register(on: &table)
    ReportsController(access: components.operatorAccess, requestMetadata: metadata)
        .register(on: &table)
    OperationsController(
        queries: components.queries,
        reads: components.reads,
        replicaLagLimit: components.replicaLagLimit,
        metrics: components.metrics,
        integrity: components.store.integrity,
        writes: components.writes,
        providers: components.account.registry.providers,
        refusals: components.limiter.recorder,
        limitSync: components.limitSync
    ).register(on: &table)
    return (router, table.routes)
}

/// The HTTP application: the router on `host:port`, each connection watched by a ``ConnectionGuard`` and
/// at most ``ConnectionLimits/maximumConnections`` open at once; `onServerRunning` hears the bound port.
public func buildApplication(
    components: ServerComponents,
    host: String,
    port: Int,
    logger: Logger,
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) throws -> some ApplicationProtocol {
    let (router, _) = try buildRouter(components: components)
    let limits = components.connectionLimits
    let metrics = components.metrics
    let counter = ConnectionCounter(limits: limits, trustedProxies: components.account.trustedProxies)
    return Application(
        router: router,
        server: .http1(
            configuration: .init(
                additionalChannelHandlers: [
                    ConnectionGuard(
                        limits: limits,
                        logger: logger,
                        metrics: metrics,
                        counter: counter,
                        recorder: components.limiter.recorder
                    ),
                    StalledReaderGuard(timeout: limits.writeStallTimeout),
                ])
        ),
        configuration: .init(
            address: .hostname(host, port: port),
            serverName: "authlog",
            availableConnectionsDelegate: MaximumAvailableConnections(limits.maximumConnections)
        ),
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? port) },
        logger: logger
    )
}
