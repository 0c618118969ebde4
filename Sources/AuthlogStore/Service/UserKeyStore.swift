public import AuthlogCore
public import AuthlogPostgres
public import Foundation

/// Each user's wrapped personal-data key (`authlog.user_keys`).
public struct UserKeyStore: UserKeyRing {
    let pool: ConnectionPool

    /// Creates the store over `pool`.
    public init(pool: ConnectionPool) { self.pool = pool }

    /// Stores `wrapped` as the user's key unless one is stored already, and returns the stored one — so
    /// that two concurrent first sign-ins of one identity end up sealing with the same key.
    /// - Throws: ``StoreError``.
    public func keepFirst(_ wrapped: [UInt8], for userID: UUID, at now: Timestamp) async throws -> [UInt8] {
        try await self.pool.withConnection { connection in
            let inserted = try await connection.query(
                """
                INSERT INTO authlog.user_keys (user_id, wrapped_key, created_at)
                VALUES (\(userID), \(ByteaValue(wrapped)), \(now))
                ON CONFLICT (user_id) DO NOTHING
                RETURNING wrapped_key
                """
            )
            if let row = inserted.first { return try row.decode(ByteaValue.self, at: 0).bytes }
            let existing = try await connection.query(
                "SELECT wrapped_key FROM authlog.user_keys WHERE user_id = \(userID)"
            )
            guard let row = existing.first else { throw StoreError(.server, "the user's key vanished") }
            return try row.decode(ByteaValue.self, at: 0).bytes
        }
    }

    /// The user's wrapped key, or `nil` once erased.
    /// - Throws: ``StoreError``.
    public func wrappedKey(for userID: UUID) async throws -> [UInt8]? {
        try await self.pool.withConnection { connection in
            try await connection.query("SELECT wrapped_key FROM authlog.user_keys WHERE user_id = \(userID)")
                .first?.decode(ByteaValue.self, at: 0).bytes
        }
    }
}

extension UserKeyStore {
    /// Destroys the user's key: personal data sealed with it can never be read again (crypto-shredding).
    /// - Throws: ``StoreError``.
    public func destroy(for userID: UUID) async throws {
        _ = try await self.pool.withConnection { connection in
            try await connection.query("DELETE FROM authlog.user_keys WHERE user_id = \(userID)")
        }
    }
}
