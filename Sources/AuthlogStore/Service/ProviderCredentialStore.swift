public import AuthlogCore

/// Provider refresh tokens (Apple) kept for revocation, sealed by the caller before they arrive here.
public struct ProviderCredentialStore: Sendable {
    private let pool: ConnectionPool

    /// Creates the store over `pool`.
    public init(pool: ConnectionPool) { self.pool = pool }

    /// Stores (or replaces) the sealed credential of an identity.
    /// - Throws: ``StoreError``.
    public func save(provider: String, subjectHash: String, sealed: [UInt8], at now: Timestamp) async throws {
        _ = try await self.pool.withConnection { connection in
            try await connection.query(
                """
                INSERT INTO authlog.provider_credentials (provider, subject_hash, sealed_token, updated_at)
                VALUES (\(provider), \(subjectHash), \(ByteaValue(sealed)), \(now))
                ON CONFLICT (provider, subject_hash)
                DO UPDATE SET sealed_token = EXCLUDED.sealed_token, updated_at = EXCLUDED.updated_at
                """
            )
        }
    }
}
