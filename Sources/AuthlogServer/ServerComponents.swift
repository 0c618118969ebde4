import AuthlogAccounts
import AuthlogCore
public import AuthlogCrypto
public import AuthlogPostgres
public import AuthlogProviders
public import AuthlogStore
import Foundation

/// Everything the HTTP server needs, made once at start-up: the account side over PostgreSQL, and the
/// log, receipt, operator and report routes' PostgreSQL-only parts.
public struct ServerComponents: Sendable {
    /// The application services and what the account routes need.
    public let account: AccountComponents
    /// Authenticates API keys on the operator and auditor routes and records their reads.
    public let operatorAccess: OperatorAccess
    /// The event log in PostgreSQL (the services see it as their ``EventStore``).
    public let store: PostgresEventStore
    /// Request-time reads of the projections in PostgreSQL.
    public let queries: SessionQueries
    /// Read and idle timeouts and the cap on open connections.
    public let connectionLimits: ConnectionLimits
    /// The log's checkpoint settings (origin, key, directory, schedule).
    public let checkpoints: CheckpointSettings
    /// Signs checkpoints, when a key is configured.
    public let checkpointer: Checkpointer?
    /// The witnesses the checkpoints are submitted to (`log.witnesses`).
    public let witnesses: WitnessSettings
    /// Where sealed events are pushed (`sinks`).
    public let sinks: SinkSettings
    /// Where the audited reads run (reports, exports, proofs, session listings): the read replica when
    /// `read_database_url` is set, else the primary.
    public let reads: ReadDatabase
    /// The replica lag past which `/readyz` calls the replica `lagging` (`read_database_max_lag_seconds`).
    public let replicaLagLimit: Duration
    /// The rate limits (`rate_limits`) and the recorder of what they and the edge refuse.
    public let limiter: RateLimiter
    /// Shares the limits' budgets with the other processes on the database.
    public let limitSync: RateLimitSync
    /// Whether this process can write the log (`/readyz`), and its outages to record.
    public let writes: WriteAvailability

    /// What `/metrics` reports.
    public var metrics: ServerMetrics { self.account.metrics }

    /// Builds the components from a configuration, over an event store on `pool` (the primary) whose batch
    /// sizes the metrics record, with the audited reads on `readPool` (a read replica) when given. The rate
    /// limits' buckets refill by `rateLimitUptime` (the system's uptime when nil; tests pass a clock they move).
    /// - Throws: ``ServerConfiguration/Invalid`` for a bad setting; ``CryptoError`` for an unusable key.
    public init(
        configuration: ServerConfiguration,
        pool: ConnectionPool,
        readPool: ConnectionPool? = nil,
        accessTokenKey: PrivateKey,
        fetcher: any HTTPFetching,
        rateLimitUptime: (@Sendable () -> Double)? = nil
    ) throws {
        let metrics = ServerMetrics()
        let writes = WriteAvailability()
        let store = try Self.eventStore(on: pool, configuration: configuration, metrics: metrics, writes: writes)
        self.writes = writes
        self.account = try AccountComponents(
            configuration: configuration,
            store: store,
            state: AccountState.postgres(pool: pool),
            metrics: metrics,
            accessTokenKey: accessTokenKey,
            fetcher: fetcher
        )
        let checkpoints = try CheckpointSettings(
            configuration: configuration,
            environment: ProcessInfo.processInfo.environment
        )
        self.checkpoints = checkpoints
        self.checkpointer = checkpoints.signer.map {
            Checkpointer(
                store: store,
                signer: $0,
                previousKeys: checkpoints.previousKeys,
                directory: checkpoints.directory,
                statePath: checkpoints.statePath
            )
        }
        self.witnesses = try WitnessSettings(configuration: configuration, checkpointKey: checkpoints.signer?.verifier)
        self.sinks = try SinkSettings(configuration: configuration)
        self.store = store
        self.queries = SessionQueries(pool: pool)
        self.reads = ReadDatabase(primary: pool, replica: readPool)
        self.replicaLagLimit = try Self.replicaLagLimit(of: configuration)
        self.limiter = RateLimiter(
            policy: try RateLimitPolicy(configuration: configuration),
            metrics: metrics,
            shared: true,
            uptime: rateLimitUptime
        )
        self.limitSync = RateLimitSync(limiter: self.limiter)
        self.operatorAccess = OperatorAccess(
            keys: APIKeyStore(pool: pool),
            store: store,
            reads: self.reads,
            limiter: self.limiter
        )
        self.connectionLimits = try ConnectionLimits(configuration.connections)
    }
}
