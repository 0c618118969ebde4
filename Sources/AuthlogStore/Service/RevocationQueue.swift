public import AuthlogCore
public import AuthlogPostgres
import Foundation

/// Grants of deleted users still to be revoked at their providers (`authlog.provider_revocations`).
///
/// Work is claimed by moving a due row's `next_attempt_at` past a lease in one statement, so two processes
/// never make the same attempt; a process that dies mid-attempt leaves the row to be claimed again once
/// the lease has passed.
public struct RevocationQueue: ProviderRevocationQueue {
    /// One grant to revoke.
    public typealias Item = ProviderRevocationItem

    private let pool: ConnectionPool

    /// Creates the queue over `pool`.
    public init(pool: ConnectionPool) { self.pool = pool }

    /// Adds items, held (not due) until `dueAt`; an item already queued is kept as it is.
    /// - Throws: ``StoreError``.
    public func enqueue(_ items: [Item], dueAt: Timestamp, at now: Timestamp) async throws {
        guard !items.isEmpty else { return }
        try await self.pool.withConnection { connection in
            for item in items {
                try await connection.query(
                    """
                    INSERT INTO authlog.provider_revocations
                        (user_id, provider, subject_hash, sealed_token, state, attempts, next_attempt_at, created_at)
                    VALUES (\(item.userID), \(item.provider), \(item.subjectHash), \(ByteaValue(item.sealedToken)),
                            'pending', 0, \(dueAt), \(now))
                    ON CONFLICT DO NOTHING
                    """
                )
            }
        }
    }

    /// Claims up to `limit` due items of deleted users, leasing each for `leaseSeconds`.
    /// - Throws: ``StoreError``.
    public func claimDue(limit: Int, leaseSeconds: Int64, at now: Timestamp) async throws -> [Item] {
        let rows = try await self.pool.withConnection { connection in
            try await connection.query(
                """
                UPDATE authlog.provider_revocations r SET next_attempt_at = \(now.adding(seconds: leaseSeconds))
                FROM (SELECT q.user_id, q.provider, q.subject_hash FROM authlog.provider_revocations q
                      JOIN authlog.users u USING (user_id)
                      WHERE q.state = 'pending' AND q.next_attempt_at <= \(now) AND u.status = 'deleted'
                      ORDER BY q.next_attempt_at LIMIT \(Int64(max(1, min(limit, 1000))))
                      FOR UPDATE OF q SKIP LOCKED) due
                WHERE r.user_id = due.user_id AND r.provider = due.provider AND r.subject_hash = due.subject_hash
                RETURNING r.user_id, r.provider, r.subject_hash, r.sealed_token, r.attempts
                """
            ).rows
        }
        return try rows.map {
            Item(
                userID: try $0.decode(UUID.self, at: 0),
                provider: try $0.decode(String.self, at: 1),
                subjectHash: try $0.decode(String.self, at: 2),
                sealedToken: try $0.decode(ByteaValue.self, at: 3).bytes,
                attempts: Int(try $0.decode(Int32.self, at: 4))
            )
        }
    }

    /// Records the outcome of an attempt: `revoked` and `abandoned` end the item (and drop its credential);
    /// `queued` makes it due again at `nextAttemptAt`.
    /// - Throws: ``StoreError``.
    public func finish(
        _ item: Item,
        result: ProviderRevocationResult,
        detail: String?,
        nextAttemptAt: Timestamp
    ) async throws {
        let ended = result != .queued
        _ = try await self.pool.withConnection { connection in
            try await connection.query(
                """
                UPDATE authlog.provider_revocations
                SET state = \(ended ? (result == .revoked ? "revoked" : "abandoned") : "pending"),
                    attempts = attempts + 1, next_attempt_at = \(nextAttemptAt), last_detail = \(detail),
                    sealed_token = CASE WHEN \(ended) THEN ''::bytea ELSE sealed_token END
                WHERE user_id = \(item.userID) AND provider = \(item.provider) AND subject_hash = \(item.subjectHash)
                  AND state = 'pending'
                """
            )
        }
    }
}
