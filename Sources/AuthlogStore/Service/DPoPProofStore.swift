public import AuthlogCore
public import AuthlogPostgres

/// The DPoP proofs already accepted, as SHA-256 hashes with the end of their lifetime (migration 33).
public struct DPoPProofStore: DPoPProofLedger {
    private let pool: ConnectionPool

    /// Creates the store over `pool`.
    public init(pool: ConnectionPool) { self.pool = pool }

    /// Records the proof with SHA-256 `proofHash` in one statement; false when a row for it exists (recorded
    /// by this or another process, or by a refresh's command: `AppendCommand.dpopProof`).
    ///
    /// The statement commits without waiting for its WAL to reach the disk (`synchronous_commit` off for its own
    /// transaction): each proof would otherwise be a flush of its own, where the events are flushed a batch at a
    /// time. The row is still atomic and seen by every process at once; only a crash of PostgreSQL can lose it,
    /// and a request that goes on to record anything (a sign-in, a logout, a revocation) flushes the WAL past it
    /// with its own commit. What a crash can lose is the row of a request that recorded nothing else, or that
    /// failed before: its proof could then be sent once more within its minute, by someone holding the request's
    /// credential too, the same once that capturing the request gave them before it was sent.
    /// - Throws: ``StoreError``.
    public func recordOnce(proofHash: [UInt8], expiresAt: Timestamp) async throws -> Bool {
        let result = try await self.pool.withConnection { connection in
            try await connection.query(
                """
                WITH relaxed AS (SELECT set_config('synchronous_commit', 'off', true))
                INSERT INTO authlog.dpop_proofs (proof_hash, expires_at)
                SELECT \(ByteaValue(proofHash)), \(expiresAt) FROM relaxed
                ON CONFLICT (proof_hash) DO NOTHING
                """
            )
        }
        return result.affectedRows == 1
    }

    /// Deletes the proofs that expired before `cutoff`; returns how many.
    /// - Throws: ``StoreError``.
    public func purge(before cutoff: Timestamp) async throws -> Int {
        try await self.pool.withConnection { connection in
            try await connection.query("DELETE FROM authlog.dpop_proofs WHERE expires_at < \(cutoff)").affectedRows
        }
    }
}
