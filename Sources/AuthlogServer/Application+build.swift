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
        func checked(_ value: Int?, _ name: String, default fallback: Int, in range: ClosedRange<Int>) throws -> Int {
            try ServiceSettings.checked(value, name, default: fallback, in: range)
        }
        let port = configuration.port ?? ConfigurationDefaults.port
        let issuer = try AccessTokenIssuer(
            key: accessTokenKey,
            issuer: configuration.publicURL ?? "http://localhost:\(port)",
            audience: configuration.accessToken?.audience ?? ConfigurationDefaults.accessTokenAudience
        )
        func key(_ text: String?, _ name: String) throws -> [UInt8]? {
            guard let text else { return nil }
            guard let bytes = Base64URL.decode(text), bytes.count == 32 else {
                throw ServerConfiguration.Invalid(description: "\(name) must be 32 bytes in base64url")
            }
            return bytes
        }
        let dataKey = try key(configuration.dataKey, "data_key")
        let subjectKey =
            try key(configuration.subjectKey, "subject_key") ?? dataKey.map(IdentityHasher.derivedKey(fromDataKey:))
        self.usesDevelopmentSubjectKey = subjectKey == nil
        let metrics = ServerMetrics()
        let store = PostgresEventStore(
            pool: pool,
            batchObserver: { metrics.recordBatch(events: $0) },
            appendObserver: { metrics.recordEvents(types: $0.map(\.rawValue)) },
            authenticator: try configuration.eventAuthenticator()
        )
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
            dataKey: dataKey,
            hasher: IdentityHasher(key: subjectKey ?? IdentityHasher.developmentKey)
        )
        self.registry = try ProviderRegistry(
            settings: configuration.providers,
            development: configuration.development ?? false,
            fetcher: fetcher
        )
        self.signin = SigninService(dependencies: self.dependencies, providers: self.registry.providers)
        self.tokens = TokenService(dependencies: self.dependencies)
        self.revoker = ProviderRevoker(dependencies: self.dependencies, providers: self.registry.providers)
        self.accounts = AccountService(
            dependencies: self.dependencies,
            signin: self.signin,
            tokens: self.tokens,
            revoker: self.revoker
        )
        self.notifications = ProviderNotificationService(
            dependencies: self.dependencies,
            signin: self.signin,
            accounts: self.accounts
        )
        self.sweeper = SessionSweeper(store: store, expiry: state.expiry, lifetimes: settings.lifetimes)
        self.reads = ReadDatabase(primary: pool, replica: readPool)
        self.replicaLagLimit = .seconds(
            try checked(
                configuration.readDatabaseMaxLagSeconds,
                "read_database_max_lag_seconds",
                default: ConfigurationDefaults.readDatabaseMaxLagSeconds,
                in: 1...86_400
            )
        )
        self.operatorAccess = OperatorAccess(keys: APIKeyStore(pool: pool), store: store, reads: self.reads)
        self.bodyLimit = try checked(
            configuration.requestBodyLimit,
            "request_body_limit",
            default: ConfigurationDefaults.requestBodyLimit,
            in: 1...(16 << 20)
        )
        self.connectionLimits = try ConnectionLimits(configuration.connections)
        self.trustedProxies = try TrustedProxies(configuration.trustedProxies ?? [])
        var clients: [String: String] = [:]
        for client in configuration.introspectionClients ?? [] {
            guard let secret = client.secret, !secret.isEmpty else {
                throw ServerConfiguration.Invalid(description: "introspection client \(client.id) has no secret")
            }
            clients[client.id] = secret
        }
        self.introspectionClients = clients
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
