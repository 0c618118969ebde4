public import AuthlogCore
public import AuthlogPostgres

/// Provider notices already acted on (`authlog.provider_notices`), so that a replayed notice changes nothing.
public struct ProviderNoticeStore: ProviderNoticeClaims {
    private let pool: ConnectionPool

    /// Creates the store over `pool`.
    public init(pool: ConnectionPool) { self.pool = pool }

    /// Claims a notice id; `false` when it was claimed before (a replay).
    /// - Throws: ``StoreError``.
    public func claim(provider: String, noticeID: String, at now: Timestamp) async throws -> Bool {
        try await self.pool.withConnection { connection in
            try await connection.query(
                """
                INSERT INTO authlog.provider_notices (provider, notice_id, received_at)
                VALUES (\(provider), \(noticeID), \(now)) ON CONFLICT DO NOTHING
                """
            ).affectedRows == 1
        }
    }

    /// Gives a claim back, when acting on the notice failed, so that the provider's retry is acted on.
    /// - Throws: ``StoreError``.
    public func release(provider: String, noticeID: String) async throws {
        _ = try await self.pool.withConnection { connection in
            try await connection.query(
                "DELETE FROM authlog.provider_notices WHERE provider = \(provider) AND notice_id = \(noticeID)"
            )
        }
    }
}
