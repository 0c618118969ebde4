public import AuthlogCore
public import AuthlogPostgres

/// Provider credentials kept for revocation at account deletion (Apple's refresh token, GitHub's access
/// token, Kakao's user id for the admin-key unlink), sealed by the caller before they arrive here.
public struct ProviderCredentialStore: ProviderCredentialVault {
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

    /// The sealed credential of an identity, if one is kept.
    /// - Throws: ``StoreError``.
    public func sealed(provider: String, subjectHash: String) async throws -> [UInt8]? {
        try await self.pool.withConnection { connection in
            try await connection.query(
                """
                SELECT sealed_token FROM authlog.provider_credentials
                WHERE provider = \(provider) AND subject_hash = \(subjectHash)
                """
            ).first?.decode(ByteaValue.self, at: 0).bytes
        }
    }

    /// Forgets the credential of an identity.
    /// - Throws: ``StoreError``.
    public func forget(provider: String, subjectHash: String) async throws {
        _ = try await self.pool.withConnection { connection in
            try await connection.query(
                """
                DELETE FROM authlog.provider_credentials WHERE provider = \(provider) AND subject_hash = \(subjectHash)
                """
            )
        }
    }
}
