public import AuthlogCore
public import AuthlogPostgres
public import Foundation

/// Verified emails as keyed hashes (`authlog.user_emails`), for the same-email policy. Never an email in
/// clear; the rows of a deleted user are removed with the account.
public struct UserEmailStore: EmailOwnership {
    /// A user who signed in with a provider that vouched for the email.
    public typealias Owner = EmailOwner

    private let pool: ConnectionPool

    /// Creates the store over `pool`.
    public init(pool: ConnectionPool) { self.pool = pool }

    /// Records that `provider` vouched for the email with keyed hash `emailHash` for `userID`.
    /// - Throws: ``StoreError``.
    public func record(
        emailHash: String,
        userID: UUID,
        provider: String,
        authoritative: Bool,
        at now: Timestamp
    ) async throws {
        _ = try await self.pool.withConnection { connection in
            try await connection.query(
                """
                INSERT INTO authlog.user_emails (email_hash, user_id, provider, authoritative, recorded_at)
                VALUES (\(emailHash), \(userID), \(provider), \(authoritative), \(now))
                ON CONFLICT (email_hash, user_id, provider) DO UPDATE SET authoritative = EXCLUDED.authoritative
                """
            )
        }
    }

    /// The existing (not deleted) users with this email, and the providers that vouched for it.
    /// - Throws: ``StoreError``.
    public func owners(of emailHash: String) async throws -> [Owner] {
        let rows = try await self.pool.withConnection { connection in
            try await connection.query(
                """
                SELECT e.user_id, e.provider FROM authlog.user_emails e JOIN authlog.users u USING (user_id)
                WHERE e.email_hash = \(emailHash) AND u.status = 'active'
                ORDER BY e.recorded_at, e.provider
                """
            ).rows
        }
        return try rows.map {
            Owner(userID: try $0.decode(UUID.self, at: 0), provider: try $0.decode(String.self, at: 1))
        }
    }

    /// Forgets the emails one provider vouched for, for one user (the identity was unlinked).
    /// - Throws: ``StoreError``.
    public func forget(userID: UUID, provider: String) async throws {
        _ = try await self.pool.withConnection { connection in
            try await connection.query(
                "DELETE FROM authlog.user_emails WHERE user_id = \(userID) AND provider = \(provider)"
            )
        }
    }

    /// Forgets every email of a user (the account was deleted).
    /// - Throws: ``StoreError``.
    public func forgetAll(userID: UUID) async throws {
        _ = try await self.pool.withConnection { connection in
            try await connection.query("DELETE FROM authlog.user_emails WHERE user_id = \(userID)")
        }
    }
}
