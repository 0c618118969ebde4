public import AuthlogCore
public import AuthlogPostgres
public import Foundation

/// ``OwnAccountReads`` on PostgreSQL: a user's active sessions from the `sessions` projection (with the
/// sign-in event of each session's stream, by the events' unique `(stream, stream_version)` index, and the
/// last rotation from `refresh_tokens`), and their activity from `event_records` through
/// `event_records_user_activity` (`user_id`, `occurred_at`, `event_id`): one backward range scan per month,
/// never a scan of the log.
public struct OwnAccountQueries: OwnAccountReads {
    private let pool: ConnectionPool

    /// Creates the queries over `pool`.
    public init(pool: ConnectionPool) { self.pool = pool }

    /// The user's active sessions, newest first (then by session id).
    /// - Throws: ``StoreError``.
    public func activeSessionDetails(of userID: UUID) async throws -> [SessionDetail] {
        let rows = try await self.pool.withConnection { connection in
            try await connection.query(
                """
                SELECT \(unescaped: SessionQueries.sessionColumns), f.ip, f.user_agent,
                       (SELECT max(t.issued_at) FROM authlog.refresh_tokens t
                        WHERE t.session_id = s.session_id AND t.parent_id IS NOT NULL)
                FROM authlog.sessions s LEFT JOIN authlog.users u ON u.user_id = s.user_id
                    LEFT JOIN LATERAL (
                        SELECT e.ip, e.user_agent FROM authlog.event_records e
                        WHERE e.stream = 'session-' || s.session_id::text AND e.stream_version = 1
                        LIMIT 1
                    ) f ON true
                WHERE s.user_id = \(userID) AND s.state = 'active'
                ORDER BY s.started_at DESC, s.session_id
                """
            ).rows
        }
        return try rows.map { row in
            SessionDetail(
                session: try SessionQueries.session(row, from: 0),
                ip: try row.decode(IPAddress?.self, at: 11),
                userAgent: try row.decode(String?.self, at: 12),
                lastRefreshedAt: try row.decode(Timestamp?.self, at: 13)
            )
        }
    }

    /// Up to `limit` of the user's events of `types`, newest first by (`occurred_at`, `event_id`), before
    /// `before`.
    /// - Throws: ``StoreError``.
    public func activity(
        of userID: UUID,
        types: Set<EventType>,
        before: ActivityPosition?,
        limit: Int
    ) async throws -> [ActivityRecord] {
        let query = Self.activityQuery(of: userID, types: types, before: before, limit: limit)
        let rows = try await self.pool.withConnection { try await $0.query(query).rows }
        return try rows.map(Self.activityRecord)
    }

    /// The user's event `eventID` when its type is one of `types`.
    /// - Throws: ``StoreError``.
    public func activityEntry(_ eventID: UUID, of userID: UUID, types: Set<EventType>) async throws -> ActivityRecord? {
        let typeArray = "{" + types.map(\.rawValue).sorted().joined(separator: ",") + "}"
        let rows = try await self.pool.withConnection { connection in
            try await connection.query(
                """
                SELECT \(unescaped: Self.activityColumns) FROM authlog.event_records e
                WHERE e.event_id = \(eventID) AND e.user_id = \(userID) AND e.type = ANY(\(typeArray)::text[])
                """
            ).rows
        }
        return try rows.first.map(Self.activityRecord)
    }

    /// The statement ``activity(of:types:before:limit:)`` runs (public so that tests can EXPLAIN it).
    public static func activityQuery(
        of userID: UUID,
        types: Set<EventType>,
        before: ActivityPosition?,
        limit: Int
    ) -> SQLQuery {
        // Type names are catalogue constants (letters, dots, underscores): no quoting is needed in the literal.
        let typeArray = "{" + types.map(\.rawValue).sorted().joined(separator: ",") + "}"
        let limit = max(limit, 0)
        // Two texts rather than `$n IS NULL OR …`, so that each prepared plan keeps the cursor as an index bound.
        guard let before else {
            return """
                SELECT \(unescaped: Self.activityColumns) FROM authlog.event_records e
                WHERE e.user_id = \(userID) AND e.type = ANY(\(typeArray)::text[])
                ORDER BY e.occurred_at DESC, e.event_id DESC LIMIT \(limit)
                """
        }
        return """
            SELECT \(unescaped: Self.activityColumns) FROM authlog.event_records e
            WHERE e.user_id = \(userID) AND e.type = ANY(\(typeArray)::text[])
              AND (e.occurred_at, e.event_id) < (\(before.occurredAt)::timestamptz, \(before.eventID)::uuid)
            ORDER BY e.occurred_at DESC, e.event_id DESC LIMIT \(limit)
            """
    }

    /// The columns ``activityRecord(_:)`` decodes, in order.
    /// The position is one probe of `log_leaves`' (event_id, log_month) key per row returned, NULL until sealed.
    static let activityColumns = """
        e.event_id, e.type, e.occurred_at, e.outcome, e.reason, e.provider, e.session_id, e.ip, e.user_agent,
        (SELECT l.position FROM authlog.log_leaves l WHERE l.event_id = e.event_id AND l.log_month = e.log_month),
        CASE WHEN e.type = 'signin.flagged' THEN e.data END
        """

    private static func activityRecord(_ row: QueryRow) throws -> ActivityRecord {
        guard let type = EventType(rawValue: try row.decode(String.self, at: 1)),
            let outcome = Outcome(rawValue: try row.decode(String.self, at: 3))
        else { throw StoreError(.decoding, "event_records.type or outcome has an unknown value") }
        return ActivityRecord(
            eventID: try row.decode(UUID.self, at: 0),
            type: type,
            occurredAt: try row.decode(Timestamp.self, at: 2),
            outcome: outcome,
            reason: try row.decode(String?.self, at: 4),
            provider: try row.decode(String?.self, at: 5),
            sessionID: try row.decode(UUID?.self, at: 6),
            ip: try row.decode(IPAddress?.self, at: 7),
            userAgent: try row.decode(String?.self, at: 8),
            logPosition: try row.decode(Int64?.self, at: 9),
            alert: try row.decode(JSONValue?.self, at: 10)
        )
    }
}
