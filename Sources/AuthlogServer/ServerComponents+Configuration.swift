import AuthlogAccounts
import AuthlogPostgres
import AuthlogStore

/// The parts of ``ServerComponents`` that are made from the configuration, one job each.
extension ServerComponents {
    /// The event store on `pool`, reporting its batches and appended types to `metrics` and how its writes went
    /// to `writes`.
    static func eventStore(
        on pool: ConnectionPool,
        configuration: ServerConfiguration,
        metrics: ServerMetrics,
        writes: WriteAvailability
    ) throws -> PostgresEventStore {
        PostgresEventStore(
            pool: pool,
            batchObserver: { metrics.recordBatch(events: $0) },
            appendObserver: { metrics.recordEvents(types: $0.map(\.rawValue)) },
            writeObserver: { writes.observe($0) },
            authenticator: try configuration.eventAuthenticator()
        )
    }

    /// `read_database_max_lag_seconds`, 1 s to a day.
    static func replicaLagLimit(of configuration: ServerConfiguration) throws -> Duration {
        .seconds(
            try ServiceSettings.checked(
                configuration.readDatabaseMaxLagSeconds,
                "read_database_max_lag_seconds",
                default: ConfigurationDefaults.readDatabaseMaxLagSeconds,
                in: 1...86_400
            )
        )
    }
}
