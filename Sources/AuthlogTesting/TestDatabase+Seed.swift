import AuthlogPostgres
import AuthlogStore
import Foundation

extension TestDatabase {
    /// Appends `count` (≥ 1) sealed events made with SQL, fast (their digests are SHA-256 of their numbers, not of
    /// canonical bytes: for tests of the tree, proofs and tiles, which never read the contents), queued as the
    /// writers queue them and sealed by the sealer.
    /// - Throws: ``StoreError`` from the database.
    public func seedSealedEvents(_ count: Int64) async throws {
        let stream = "seeded-\(UUID().uuidString.lowercased())"
        let script = """
            INSERT INTO authlog.event_records (event_id, stream, stream_version, type, occurred_at, recorded_at,
                outcome, reason, provider, data, schema_version, digest, log_month)
            SELECT gen_random_uuid(), '\(stream)', n, 'signin.failed', now(), now(), 'failure', 'expired', 'apple',
                   '{"reason": "expired"}', 1, sha256(n::text::bytea), (SELECT month FROM authlog.log_epoch)
            FROM generate_series(1, \(count)) AS n;
            INSERT INTO authlog.unsealed_events (event_id, digest)
            SELECT event_id, digest FROM authlog.event_records WHERE stream = '\(stream)' ORDER BY stream_version
            """
        try await self.connect().execute(SQLQuery(unsafeSQL: script))
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: self.conninfo, maximumConnections: 2))
        try await store.sealPending()
    }
}
