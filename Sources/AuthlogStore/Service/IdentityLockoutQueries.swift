public import AuthlogCore
public import AuthlogPostgres

/// The identity lockout projection (`identity_lockouts`, migration 0018) as the sign-in rules read it: one
/// row by primary key, its failures counted within the kept array (at most
/// ``IdentityLockout/keptFailures``), and the identity stream's version from the events' unique
/// `(stream, stream_version)` index.
public struct IdentityLockoutQueries: IdentityLockouts {
    private let pool: ConnectionPool

    /// Creates the queries over `pool`.
    public init(pool: ConnectionPool) { self.pool = pool }

    /// The lockout state of `provider`/`subjectHash`, counting the failures at or after `since`.
    /// - Throws: ``StoreError``.
    public func lockout(
        provider: String,
        subjectHash: String,
        failuresSince since: Timestamp
    ) async throws -> IdentityLockout {
        let stream = IdentityLockout.streamName(provider: provider, subjectHash: subjectHash).rawValue
        let row = try await self.pool.withConnection { connection in
            try await connection.query(
                """
                SELECT (SELECT count(*) FROM unnest(l.recent_failures) f WHERE f >= \(since)),
                       l.level, l.locked_at, l.locked_until, l.locked_at IS NOT NULL AND l.unlocked_at IS NULL,
                       (SELECT coalesce(max(e.stream_version), 0) FROM authlog.event_records e
                        WHERE e.stream = \(stream))
                FROM (SELECT 1) AS one
                LEFT JOIN authlog.identity_lockouts l
                    ON l.provider = \(provider) AND l.subject_hash = \(subjectHash)
                """
            ).first
        }
        guard let row else { throw StoreError(.server, "the lockout query returned no row") }
        return IdentityLockout(
            recentFailures: Int(try row.decode(Int64?.self, at: 0) ?? 0),
            level: Int(try row.decode(Int32?.self, at: 1) ?? 0),
            lockedAt: try row.decode(Timestamp?.self, at: 2),
            lockedUntil: try row.decode(Timestamp?.self, at: 3),
            isLockRecorded: try row.decode(Bool?.self, at: 4) ?? false,
            streamVersion: try row.decode(Int32.self, at: 5)
        )
    }

    /// At most `limit` recorded locks that ran out by `now` without their `identity.unlocked`, the longest run
    /// out first (the partial index `identity_lockouts_pending_expiry` finds them).
    /// - Throws: ``StoreError``.
    public func expiredLocks(at now: Timestamp, limit: Int) async throws -> [ExpiredLock] {
        let rows = try await self.pool.withConnection { connection in
            try await connection.query(
                """
                SELECT l.provider, l.subject_hash,
                       (SELECT coalesce(max(e.stream_version), 0) FROM authlog.event_records e
                        WHERE e.stream = 'identity-' || l.provider || ':' || l.subject_hash)
                FROM authlog.identity_lockouts l
                WHERE l.locked_at IS NOT NULL AND l.unlocked_at IS NULL AND l.locked_until <= \(now)
                ORDER BY l.locked_until, l.provider, l.subject_hash
                LIMIT \(max(limit, 0))
                """
            ).rows
        }
        return try rows.map { row in
            ExpiredLock(
                provider: try row.decode(String.self, at: 0),
                subjectHash: try row.decode(String.self, at: 1),
                streamVersion: try row.decode(Int32.self, at: 2)
            )
        }
    }
}
