public import AuthlogAccounts
import AuthlogCore
public import AuthlogCrypto
public import AuthlogPostgres
public import AuthlogProviders
public import AuthlogStore
import Foundation
public import Hummingbird
import HummingbirdCore
public import Logging

/// Everything the HTTP server needs, made once at start-up.
public struct ServerComponents: Sendable {
    /// Sign-in and nonces.
    public let signin: SigninService
    /// Refresh, logout, introspection and revocation.
    public let tokens: TokenService
    /// The signed-in user's account: credential state, re-authentication, identities, deletion.
    public let accounts: AccountService
    /// Apple notifications and Kakao unlink callbacks.
    public let notifications: ProviderNotificationService
    /// Revokes deleted users' grants at their providers, and retries the ones that failed.
    public let revoker: ProviderRevoker
    /// Expires sessions past their lifetimes.
    public let sweeper: SessionSweeper
    /// Authenticates API keys on the operator and auditor routes and records their reads.
    public let operatorAccess: OperatorAccess
    /// What the services share.
    public let dependencies: ServiceDependencies
    /// The event log in PostgreSQL (the services see it as their ``EventStore``).
    public let store: PostgresEventStore
    /// Request-time reads of the projections in PostgreSQL.
    public let queries: SessionQueries
    /// What `/metrics` reports.
    public let metrics: ServerMetrics
    /// The enabled providers.
    public let registry: ProviderRegistry
    /// The largest request body, in bytes.
    public let bodyLimit: Int
    /// Read and idle timeouts and the cap on open connections.
    public let connectionLimits: ConnectionLimits
    /// Peers whose `X-Forwarded-For` is believed.
    public let trustedProxies: TrustedProxies
    /// Introspection callers: id → secret.
    public let introspectionClients: [String: String]
    /// The log's checkpoint settings (origin, key, directory, schedule).
    public let checkpoints: CheckpointSettings
    /// Signs checkpoints, when a key is configured.
    public let checkpointer: Checkpointer?
    /// The witnesses the checkpoints are submitted to (`log.witnesses`).
    public let witnesses: WitnessSettings
    /// Where the audited reads run (reports, exports, proofs, session listings): the read replica when
    /// `read_database_url` is set, else the primary.
    public let reads: ReadDatabase
    /// The replica lag past which `/readyz` calls the replica `lagging` (`read_database_max_lag_seconds`).
    public let replicaLagLimit: Duration
    /// Whether subject and email hashes use the fixed development key (neither a subject key nor a data key
    /// is configured); `serve` warns.
    public let usesDevelopmentSubjectKey: Bool

    /// Builds the components from a configuration, over an event store on `pool` (the primary) whose batch
    /// sizes the metrics record, with the audited reads on `readPool` (a read replica) when given.
    /// - Throws: ``ServerConfiguration/Invalid`` for a bad setting; ``CryptoError`` for an unusable key.
    public init(
        configuration: ServerConfiguration,
        pool: ConnectionPool,
        readPool: ConnectionPool? = nil,
        accessTokenKey: PrivateKey,
        fetcher: any HTTPFetching
    ) throws {
        let settings = try ServiceSettings(configuration: configuration)
        let issuer = try Self.accessTokenIssuer(configuration: configuration, key: accessTokenKey)
        let keys = try Self.hashingKeys(of: configuration)
        self.usesDevelopmentSubjectKey = keys.subject == nil
        let metrics = ServerMetrics()
        let store = try Self.eventStore(on: pool, configuration: configuration, metrics: metrics)
        let checkpoints = try CheckpointSettings(
            configuration: configuration,
            environment: ProcessInfo.processInfo.environment
        )
        self.checkpoints = checkpoints
        self.checkpointer = checkpoints.signer.map {
            Checkpointer(store: store, signer: $0, directory: checkpoints.directory, statePath: checkpoints.statePath)
        }
        self.witnesses = try WitnessSettings(configuration: configuration)
        let state = AccountState.postgres(pool: pool)
        self.store = store
        self.queries = SessionQueries(pool: pool)
        self.metrics = metrics
        self.dependencies = ServiceDependencies(
            store: store,
            state: state,
            accessTokens: issuer,
            settings: settings,
            metrics: metrics,
            dataKey: keys.data,
            hasher: IdentityHasher(key: keys.subject ?? IdentityHasher.developmentKey)
        )
        self.registry = try ProviderRegistry(
            settings: configuration.providers,
            development: configuration.development ?? false,
            fetcher: fetcher
        )
        let services = Self.services(dependencies: self.dependencies, providers: self.registry.providers)
        self.signin = services.signin
        self.tokens = services.tokens
        self.revoker = services.revoker
        self.accounts = services.accounts
        self.notifications = services.notifications
        self.sweeper = SessionSweeper(store: store, expiry: state.expiry, lifetimes: settings.lifetimes)
        self.reads = ReadDatabase(primary: pool, replica: readPool)
        self.replicaLagLimit = try Self.replicaLagLimit(of: configuration)
        self.operatorAccess = OperatorAccess(keys: APIKeyStore(pool: pool), store: store, reads: self.reads)
        self.bodyLimit = try Self.bodyLimit(of: configuration)
        self.connectionLimits = try ConnectionLimits(configuration.connections)
        self.trustedProxies = try TrustedProxies(configuration.trustedProxies ?? [])
        self.introspectionClients = try Self.introspectionClients(of: configuration)
    }
}

/// The router with every route of the server, and the list of those routes.
public func buildRouter(
    components: ServerComponents
) throws -> (router: Router<AppRequestContext>, routes: [RouteDescription]) {
    let router = Router(context: AppRequestContext.self)
    router.add(middleware: RequestIDMiddleware(metrics: components.metrics))
    var table = RouteTable(router: router)
    let body = RequestBodyReader(limit: components.bodyLimit)
    let metadata = RequestMetadataReader(trustedProxies: components.trustedProxies)
    SigninController(service: components.signin, body: body, requestMetadata: metadata).register(on: &table)
    TokenController(
        service: components.tokens,
        body: body,
        requestMetadata: metadata,
        introspectionClients: components.introspectionClients
    ).register(on: &table)
    MeController(service: components.accounts, body: body, requestMetadata: metadata).register(on: &table)
    ProviderCallbackController(service: components.notifications, body: body, requestMetadata: metadata)
        .register(on: &table)
    LogController(
        access: components.operatorAccess,
        requestMetadata: metadata,
        metrics: components.metrics,
        limiter: ClientRateLimiter(
            perSecond: Double(components.checkpoints.readsPerSecond),
            burst: components.checkpoints.readBurst
        )
    )
    .register(on: &table)
    ReceiptController(
        tokens: components.tokens,
        access: components.operatorAccess,
        pool: components.store.pool,
        checkpointSeconds: components.checkpoints.everySeconds,
        witnessQuorum: components.witnesses.policy?.quorum ?? 0,
        requestMetadata: metadata
    )
    .register(on: &table)
    EventsController(
        access: components.operatorAccess,
        store: components.store,
        body: body,
        requestMetadata: metadata
    )
    .register(on: &table)
    AdminController(access: components.operatorAccess, dependencies: components.dependencies, requestMetadata: metadata)
        .register(on: &table)
    ReportsController(access: components.operatorAccess, requestMetadata: metadata)
        .register(on: &table)
    OperationsController(
        queries: components.queries,
        reads: components.reads,
        replicaLagLimit: components.replicaLagLimit,
        metrics: components.metrics,
        integrity: components.store.integrity,
        publicKeys: try components.dependencies.accessTokens.publicKeys.json(),
        providers: components.registry.providers
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
    return Application(
        router: router,
        server: .http1(
            configuration: .init(
                additionalChannelHandlers: [ConnectionGuard(limits: limits, logger: logger, metrics: metrics)])
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
