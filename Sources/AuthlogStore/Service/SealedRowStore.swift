public import AuthlogCore
public import AuthlogPostgres
public import Foundation

/// ``SealedRowTables`` over `authlog.user_keys` and `authlog.provider_credentials`.
public struct SealedRowStore: SealedRowTables {
    private let pool: ConnectionPool

    /// Creates the store over `pool`.
    public init(pool: ConnectionPool) { self.pool = pool }

    /// Below every user id.
    private static let zero = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))

    /// Up to `limit` wrapped user keys after `after`, in user order.
    /// - Throws: ``StoreError``.
    public func userKeys(after: UUID?, limit: Int) async throws -> [SealedRow] {
        try await self.pool.withConnection { connection in
            let rows = try await connection.query(
                """
                SELECT user_id, wrapped_key FROM authlog.user_keys
                WHERE user_id > \(after ?? Self.zero)
                ORDER BY user_id LIMIT \(limit)
                """
            )
            return try rows.rows.map {
                SealedRow(
                    kind: .userKey(try $0.decode(UUID.self, at: 0)),
                    sealed: try $0.decode(ByteaValue.self, at: 1).bytes
                )
            }
        }
    }

    /// Up to `limit` provider credentials after `after`, in (provider, subject) order.
    /// - Throws: ``StoreError``.
    public func credentials(after: (provider: String, subjectHash: String)?, limit: Int) async throws -> [SealedRow] {
        try await self.pool.withConnection { connection in
            let rows = try await connection.query(
                """
                SELECT provider, subject_hash, sealed_token FROM authlog.provider_credentials
                WHERE (provider, subject_hash) > (\(after?.provider ?? ""), \(after?.subjectHash ?? ""))
                ORDER BY provider, subject_hash LIMIT \(limit)
                """
            )
            return try rows.rows.map {
                SealedRow(
                    kind: .credential(
                        provider: try $0.decode(String.self, at: 0),
                        subjectHash: try $0.decode(String.self, at: 1)
                    ),
                    sealed: try $0.decode(ByteaValue.self, at: 2).bytes
                )
            }
        }
    }

    /// Replaces the row's bytes if they are still `row.sealed`.
    /// - Throws: ``StoreError``.
    public func replace(_ row: SealedRow, with sealed: [UInt8]) async throws -> Bool {
        try await self.pool.withConnection { connection in
            let updated: QueryResult
            switch row.kind {
            case .userKey(let userID):
                updated = try await connection.query(
                    """
                    UPDATE authlog.user_keys SET wrapped_key = \(ByteaValue(sealed))
                    WHERE user_id = \(userID) AND wrapped_key = \(ByteaValue(row.sealed)) RETURNING user_id
                    """
                )
            case .credential(let provider, let subjectHash):
                updated = try await connection.query(
                    """
                    UPDATE authlog.provider_credentials SET sealed_token = \(ByteaValue(sealed))
                    WHERE provider = \(provider) AND subject_hash = \(subjectHash)
                      AND sealed_token = \(ByteaValue(row.sealed))
                    RETURNING provider
                    """
                )
            }
            return !updated.rows.isEmpty
        }
    }
}
