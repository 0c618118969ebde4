import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import AuthlogTransparency
import Testing

/// ``ConsistencyVerifier`` accepts every proof ``LogProofs`` reads from the sealed log's rows, for every pair of
/// sizes up to 70, and the proofs' roots are the log's. That the verifier refuses each tampering, and its exact
/// reasons, is tested without a database in the client package (clients/swift, ConsistencyVerifierTests).
@Suite(.enabled(if: TestDatabase.isAvailable), .serialized)
struct ConsistencyVerifierTests {
    @Test func proofsOfEveryPairOfSizesVerify() async throws {
        let database = try await TestDatabase.make()
        try await database.connect().execute(
            """
            INSERT INTO authlog.event_records (event_id, stream, stream_version, type, occurred_at, recorded_at,
                outcome, reason, provider, data, schema_version, digest, log_month)
            SELECT gen_random_uuid(), 'signin-apple', n, 'signin.failed', now(), now(), 'failure', 'expired', 'apple',
                   '{"reason": "expired"}', 1, sha256(n::text::bytea), (SELECT month FROM authlog.log_epoch)
            FROM generate_series(1, 70) AS n;
            INSERT INTO authlog.unsealed_events (event_id, digest)
            SELECT event_id, digest FROM authlog.event_records ORDER BY stream_version
            """
        )
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo, maximumConnections: 2))
        try await store.sealPending()
        let connection = try await database.connect()
        var roots: [Int64: [UInt8]] = [:]
        for size in Int64(0)...70 { roots[size] = try await LogProofs.root(size: size, on: connection) }
        var checked = 0
        for new in Int64(1)...70 {
            for old in Int64(1)...new {
                let proof = try await LogProofs.consistency(from: old, to: new, on: connection)
                let oldRoot = try #require(roots[old])
                let newRoot = try #require(roots[new])
                #expect(proof.fromRoot == oldRoot && proof.toRoot == newRoot)
                try ConsistencyVerifier.verify(
                    oldSize: old,
                    oldRoot: oldRoot,
                    newSize: new,
                    newRoot: newRoot,
                    proof: proof.hashes
                )
                checked += 1
            }
        }
        print("consistency proofs verified: \(checked)")
        #expect(checked == 70 * 71 / 2)
    }
}
