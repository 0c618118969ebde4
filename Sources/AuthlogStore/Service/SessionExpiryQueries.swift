public import AuthlogCore
public import AuthlogPostgres

/// Finds active sessions past their absolute or idle lifetime, for the sweeper.
public struct SessionExpiryQueries: SessionExpiryReads {
    /// A session to expire, with its stream's version for an expected-version append.
    public typealias Due = ExpiringSession

    private let pool: ConnectionPool

    /// Creates the queries over `pool`.
    public init(pool: ConnectionPool) { self.pool = pool }

    /// At most `limit` active sessions past a lifetime at `now`, oldest first.
    /// - Throws: ``StoreError``.
    public func due(at now: Timestamp, lifetimes: SessionLifetimes, limit: Int) async throws -> [Due] {
        let remember = lifetimes.rememberMe
        let plain = lifetimes.plain
        let rows = try await self.pool.withConnection { connection in
            try await connection.query(
                """
                SELECT \(unescaped: SessionQueries.sessionColumns),
                       (SELECT max(e.stream_version) FROM authlog.event_records e
                        WHERE e.stream = 'session-' || s.session_id::text)
                FROM authlog.sessions s LEFT JOIN authlog.users u ON u.user_id = s.user_id
                WHERE s.state = 'active' AND s.ended_at IS NULL AND (
                    (s.kind = 'remember_me' AND (s.started_at <= \(now.adding(seconds: -remember.absolute))
                                                 OR s.last_seen_at <= \(now.adding(seconds: -remember.idle))))
                    OR (s.kind = 'session' AND (s.started_at <= \(now.adding(seconds: -plain.absolute))
                                                OR s.last_seen_at <= \(now.adding(seconds: -plain.idle)))))
                ORDER BY s.last_seen_at LIMIT \(Int64(max(1, min(limit, 10_000))))
                """
            ).rows
        }
        return try rows.compactMap { row in
            let session = try SessionQueries.session(row, from: 0)
            guard
                let passed = lifetimes.passedLimit(
                    kind: session.kind,
                    startedAt: session.startedAt,
                    lastSeenAt: session.lastSeenAt,
                    now: now
                )
            else { return nil }
            return Due(session: session, version: try row.decode(Int32?.self, at: 11) ?? 0, limit: passed)
        }
    }
}
