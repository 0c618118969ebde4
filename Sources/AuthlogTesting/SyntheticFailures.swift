import AuthlogPostgres
import AuthlogStore

/// Many events fast, for benchmarks and tests of long runs: sealed `signin.failed` events with realistic
/// columns, written with SQL in the log's current month and sealed by one sealer. Their digests are not
/// their canonical bytes' (`verify` rejects them): use them where the log is read, not checked.
public enum SyntheticFailures {
    /// Appends `count` such events to the database at `conninfo`.
    /// - Throws: ``StoreError`` from the server.
    public static func fill(conninfo: String, count: Int) async throws {
        let connection = try await Connection.connect(conninfo)
        try await connection.execute(
            """
            INSERT INTO authlog.event_records (event_id, stream, stream_version, type, occurred_at, recorded_at,
                outcome, reason, provider, user_id, client_id, ip, user_agent, request_id, data, schema_version, digest,
                log_month)
            SELECT gen_random_uuid(), 'signin-apple', n, 'signin.failed', now(), now(), 'failure', 'expired', 'apple',
                   gen_random_uuid(), 'com.example.app', '203.0.113.7', 'ExampleApp/1.0 (iPhone; iOS 18.1)',
                   'req-' || n, '{"reason": "expired", "detail": "the identity token expired 12 s ago"}', 1,
                   sha256(n::text::bytea), (SELECT month FROM authlog.log_epoch)
            FROM generate_series(1, \(unescaped: String(max(0, count)))) AS n;
            INSERT INTO authlog.unsealed_events (event_id, digest)
            SELECT event_id, digest FROM authlog.event_records ORDER BY stream_version
            """
        )
        try await PostgresEventStore(pool: ConnectionPool(conninfo: conninfo, maximumConnections: 1)).sealPending()
    }
}
