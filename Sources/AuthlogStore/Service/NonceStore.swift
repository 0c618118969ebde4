public import AuthlogCore
public import AuthlogPostgres

/// Single-use nonces: those authlog issues (`POST /v1/nonces`) and those devices make. Only SHA-256
/// hashes are stored.
public struct NonceStore: NonceLedger {
    /// What consuming a nonce found.
    public typealias Consumption = NonceConsumption

    private let pool: ConnectionPool

    /// Creates the store over `pool`.
    public init(pool: ConnectionPool) { self.pool = pool }

    /// Records an issued nonce.
    /// - Throws: ``StoreError``.
    public func recordIssued(hash: [UInt8], at issuedAt: Timestamp, expiresAt: Timestamp) async throws {
        _ = try await self.pool.withConnection { connection in
            try await connection.query(
                """
                INSERT INTO authlog.issued_nonces (nonce_hash, issued_at, expires_at)
                VALUES (\(ByteaValue(hash)), \(issuedAt), \(expiresAt))
                """
            )
        }
    }

    /// Consumes the nonce with SHA-256 `hash` for `provider` at `now`, in one statement: a pair already
    /// consumed is a replay, an issued nonce past its expiry is expired, anything else is accepted once.
    /// - Throws: ``StoreError``.
    public func consume(provider: String, hash: [UInt8], at now: Timestamp) async throws -> Consumption {
        let row = try await self.pool.withConnection { connection in
            try await connection.query(
                """
                WITH issued AS (
                    SELECT expires_at FROM authlog.issued_nonces WHERE nonce_hash = \(ByteaValue(hash))
                ), inserted AS (
                    INSERT INTO authlog.consumed_nonces (provider, nonce_hash, consumed_at)
                    SELECT \(provider), \(ByteaValue(hash)), \(now)
                    WHERE NOT EXISTS (SELECT 1 FROM issued WHERE expires_at <= \(now))
                    ON CONFLICT DO NOTHING
                    RETURNING 1
                )
                SELECT (SELECT count(*) FROM inserted), EXISTS (SELECT 1 FROM issued WHERE expires_at <= \(now))
                """
            ).first
        }
        guard let row else { throw StoreError(.server, "the nonce statement returned no row") }
        if try row.decode(Bool.self, at: 1) { return .expired }
        return try row.decode(Int64.self, at: 0) == 1 ? .accepted : .replayed
    }

    /// Deletes consumed nonces older than `cutoff` and issued ones that expired before it; returns how many.
    /// - Throws: ``StoreError``.
    public func purge(before cutoff: Timestamp) async throws -> Int {
        try await self.pool.withConnection { connection in
            let consumed = try await connection.query(
                "DELETE FROM authlog.consumed_nonces WHERE consumed_at < \(cutoff)"
            )
            let issued = try await connection.query("DELETE FROM authlog.issued_nonces WHERE expires_at < \(cutoff)")
            return consumed.affectedRows + issued.affectedRows
        }
    }
}
