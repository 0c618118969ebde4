import AuthlogCore
import AuthlogCrypto
import AuthlogPostgres

/// Moves the events of the single-writer hash chain (`authlog.events_v1`, renamed by migration 6) into the
/// transparency log, inside migration 6's transaction: it checks the old chain event by event, stores each
/// event with the digest of its new canonical bytes, queues them in position order and seals them, so every
/// event keeps its position; then it drops the old table. A broken chain stops the migration.
enum LegacyLogImport {
    /// Events moved per round.
    static let pageSize = 5000

    /// Runs the import when migration 6 left an old table behind.
    /// - Throws: ``StoreError`` `.schema` naming the first bad position of a broken chain, or the server's.
    static func run(on connection: Connection) async throws {
        let exists = try await connection.query("SELECT to_regclass('authlog.events_v1') IS NOT NULL")
        guard try exists.first?.decode(Bool.self, at: 0) == true else { return }
        var expected: Int64 = 1
        var previousHash = CanonicalEventEncoding.legacyGenesisHash
        while true {
            // The old row has the sealed columns' shape with prev_hash and hash where digest and leaf_hash are.
            let result = try await connection.query(
                """
                SELECT \(unescaped: EventRow.columns(of: "v", position: "v.position", digest: "v.prev_hash", leafHash: "v.hash"))
                FROM authlog.events_v1 v WHERE v.position >= \(expected) ORDER BY v.position LIMIT \(Self.pageSize)
                """
            )
            let events = try result.rows.map(EventRow.decode)
            var rows: [EventRow.Committed] = []
            for event in events {
                let bytes = CanonicalEventEncoding.legacyBytes(
                    position: event.position,
                    envelope: event.envelope,
                    recordedAt: event.recordedAt
                )
                guard event.position == expected, event.digest == previousHash,
                    SHA256.hash(previousHash, bytes) == event.leafHash
                else {
                    throw StoreError(
                        .schema,
                        "the old hash chain is broken at position \(expected); migration 6 moves only an intact "
                            + "chain (run the previous authlog's `verify` to see why)"
                    )
                }
                previousHash = event.leafHash
                expected += 1
                rows.append(EventRow.Committed(envelope: event.envelope, recordedAt: event.recordedAt))
            }
            if !rows.isEmpty {
                try await Self.store(rows, on: connection)
            }
            if events.count < Self.pageSize { break }
        }
        try await connection.execute("DROP TABLE authlog.events_v1")
    }

    private static func store(_ rows: [EventRow.Committed], on connection: isolated Connection) throws {
        let inserted = try connection.pipeline(EventRow.inserts(rows, stampingMonth: false)).reduce(0) {
            $0 + $1.rows.count
        }
        guard inserted == rows.count else {
            throw StoreError(.schema, "the old log holds an event id or stream version twice")
        }
        try connection.pipeline([EventRow.enqueue(rows, withMAC: false)])
        while try SealStep.run(ownsTransaction: false, stampingMonth: false, on: connection).count > 0 {}
    }
}
