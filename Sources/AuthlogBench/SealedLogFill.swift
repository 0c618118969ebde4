import AuthlogPostgres
import AuthlogStore
import Foundation

/// A sealed log of any size, fast: events inserted with SQL (generated sign-ins and refreshes whose digests
/// are placeholders) and queued, then sealed by the sealer itself, so the tree, its nodes and its head are the
/// ones the service would have made.
enum SealedLogFill {
    static func fill(_ database: BenchDatabase, events: Int) async throws {
        let connection = try await Connection.connect(database.conninfo)
        let chunk = 200_000
        for start in stride(from: 0, to: events, by: chunk) {
            let last = min(start + chunk, events)
            try await Self.queue(numbers: (start + 1)...last, on: connection)
            try await PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo, maximumConnections: 2))
                .sealPending()
            say("  \(last) events sealed")
        }
        try await connection.execute("ANALYZE")
    }

    /// Inserts and queues (does not seal) one generated event for each of `numbers`, on streams named by the
    /// numbers (`signin-bench<n>`): numbers must not repeat in one database.
    static func queue(numbers: ClosedRange<Int>, on connection: Connection) async throws {
        try await connection.execute(
            SQLQuery(
                unsafeSQL: """
                    WITH inserted AS (
                    INSERT INTO authlog.event_records (event_id, stream, stream_version, type, occurred_at,
                        recorded_at, outcome, reason, provider, data, schema_version, digest, log_month)
                    SELECT gen_random_uuid(), 'signin-bench' || n, 1, 'signin.failed', now(), now(), 'failure',
                           'expired', 'apple', '{"reason": "expired"}', 1, sha256(n::text::bytea),
                           (SELECT month FROM authlog.log_epoch)
                    FROM generate_series(\(numbers.lowerBound), \(numbers.upperBound)) AS n
                    RETURNING event_id, digest)
                    INSERT INTO authlog.unsealed_events (event_id, digest) SELECT event_id, digest FROM inserted
                    """
            )
        )
    }
}
