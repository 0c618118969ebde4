public import AuthlogCore
public import AuthlogPostgres

/// The DPoP proofs already accepted, as SHA-256 hashes with the end of their lifetime (migration 33).
public struct DPoPProofStore: DPoPProofLedger {
    private let pool: ConnectionPool

    /// Creates the store over `pool`.
    public init(pool: ConnectionPool) { self.pool = pool }

    /// Records the proof with SHA-256 `proofHash` in one statement; false when a row for it exists (recorded
    /// by this or another process).
    /// - Throws: ``StoreError``.
    public func recordOnce(proofHash: [UInt8], expiresAt: Timestamp) async throws -> Bool {
        let result = try await self.pool.withConnection { connection in
            try await connection.query(
                """
                INSERT INTO authlog.dpop_proofs (proof_hash, expires_at) VALUES (\(ByteaValue(proofHash)), \(expiresAt))
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
