public import AuthlogCore
public import AuthlogPostgres
public import Foundation

/// The request-time reads of the sign-in service, all on projection tables (plus a stream's version from
/// the events' unique `(stream, stream_version)` index).
public struct SessionQueries: SessionReads {
    private let pool: ConnectionPool

    /// Creates the queries over `pool`.
    public init(pool: ConnectionPool) { self.pool = pool }

    /// The identity rows of `provider` whose subject hash is one of `subjectHashes` (the generations of one
    /// subject), keyed by subject hash.
    /// - Throws: ``StoreError``.
    public func identities(provider: String, subjectHashes: [String]) async throws -> [String: IdentityRecord] {
        let rows = try await self.pool.withConnection { connection in
            try await connection.query(Self.identityLookup(provider: provider, subjectHashes: subjectHashes)).rows
        }
        var found: [String: IdentityRecord] = [:]
        for row in rows {
            let record = try Self.identity(row)
            found[record.subjectHash] = record
        }
        return found
    }

    /// The identity lookup's statement, with `columns` after the identity's and `joining` after its tables
    /// (what a sign-in with alerts reads along). Up to two hashes (what a sign-in asks for) are two parameters,
    /// the second repeating the first when there is one: with a variable-length array PostgreSQL's generic plan
    /// costs more than each custom one, so the statement was planned afresh on most executions
    /// (`pg_stat_statements`: 30,578 plans in 42,964 calls of `authlog-bench service`).
    static func identityLookup(
        provider: String,
        subjectHashes: [String],
        columns: String = "",
        joining: String = ""
    ) -> SQLQuery {
        var query = SQLQuery(
            unsafeSQL: """
                SELECT i.provider, i.subject_hash, i.user_id, i.released_at IS NOT NULL,
                       coalesce(u.status = 'active', false)\(columns)
                FROM authlog.identities i LEFT JOIN authlog.users u USING (user_id) \(joining)
                WHERE i.provider =
                """
        )
        let providerPlaceholder = query.bind(provider)
        query.append(unescaped: " " + providerPlaceholder + " AND i.subject_hash")
        if let first = subjectHashes.first, subjectHashes.count <= 2 {
            let firstPlaceholder = query.bind(first)
            let secondPlaceholder = query.bind(subjectHashes.last ?? first)
            query.append(unescaped: " IN (\(firstPlaceholder), \(secondPlaceholder))")
        } else {
            // Hex hashes need no quoting inside an array literal.
            let array = "{" + subjectHashes.filter { $0.utf8.allSatisfy(Self.isHexDigit) }.joined(separator: ",") + "}"
            let placeholder = query.bind(array)
            query.append(unescaped: " = ANY(\(placeholder)::text[])")
        }
        return query
    }

    /// The linked (not released) identities of a user, oldest first.
    /// - Throws: ``StoreError``.
    public func identities(of userID: UUID) async throws -> [IdentityRecord] {
        let rows = try await self.pool.withConnection { connection in
            try await connection.query(
                """
                SELECT i.provider, i.subject_hash, i.user_id, false, coalesce(u.status = 'active', false)
                FROM authlog.identities i LEFT JOIN authlog.users u USING (user_id)
                WHERE i.user_id = \(userID) AND i.released_at IS NULL
                ORDER BY i.linked_at, i.provider
                """
            ).rows
        }
        return try rows.map(Self.identity)
    }

    /// The refresh token whose SHA-256 is `hash`, if any.
    /// - Throws: ``StoreError``.
    public func refreshToken(hash: [UInt8], withSessionSignin: Bool) async throws -> RefreshTokenRecord? {
        let row = try await self.pool.withConnection { connection in
            try await connection.query(
                """
                SELECT t.token_id, t.family_id, t.state, t.expires_at,
                       (SELECT max(e.stream_version) FROM authlog.event_records e
                        WHERE e.stream = 'session-' || t.session_id::text),
                       \(unescaped: Self.sessionColumns), t.rotated_at, t.successor_sealed, t.dpop_jkt
                       \(unescaped: withSessionSignin ? Self.sessionSigninColumns : "")
                FROM authlog.refresh_tokens t JOIN authlog.sessions s USING (session_id)
                    LEFT JOIN authlog.users u ON u.user_id = s.user_id
                    \(unescaped: withSessionSignin ? Self.sessionSigninJoin : "")
                WHERE t.token_hash = \(ByteaValue(hash))
                """
            ).first
        }
        guard let row else { return nil }
        guard let state = RefreshTokenState(rawValue: try row.decode(String.self, at: 2)) else {
            throw StoreError(.decoding, "refresh_tokens.state has an unknown value")
        }
        return RefreshTokenRecord(
            tokenID: try row.decode(UUID.self, at: 0),
            familyID: try row.decode(UUID.self, at: 1),
            state: state,
            expiresAt: try row.decode(Timestamp.self, at: 3),
            session: try Self.session(row, from: 5),
            sessionVersion: try row.decode(Int32?.self, at: 4) ?? 0,
            rotatedAt: try row.decode(Timestamp?.self, at: 16),
            sealedSuccessor: try row.decode(ByteaValue?.self, at: 17)?.bytes,
            sessionSignin: withSessionSignin ? try Self.sessionSignin(row, from: 19) : nil,
            dpopJKT: try row.decode(String?.self, at: 18)
        )
    }

    /// For sign-in alerts, after the refresh token's columns: the session's `signin.succeeded` (its
    /// `occurred_at` is the session's `started_at`: one probe of `event_records_user_signins`) with its sighting,
    /// the kinds flagged on the session's admitted sign-in and refreshes since it started, the user's wrapped
    /// key, and the sign-in's address.
    static let sessionSigninColumns = """
        , ss.occurred_at, \(SigninHistoryQueries.sightingColumns("ss.data")),
          (SELECT string_agg(DISTINCT j.value->>'kind', ',')
           FROM authlog.event_records f
           CROSS JOIN LATERAL jsonb_array_elements(CASE jsonb_typeof(f.data->'judgements')
                                                       WHEN 'array' THEN f.data->'judgements' ELSE '[]' END) AS j
           WHERE f.user_id = s.user_id AND f.type = 'signin.flagged' AND f.occurred_at >= s.started_at
             AND f.session_id = s.session_id AND f.data->>'decision' IN ('recorded', 'reauthenticated')),
          (SELECT k.wrapped_key FROM authlog.user_keys k WHERE k.user_id = s.user_id), ss.ip
        """

    /// The join ``sessionSigninColumns`` reads `ss` from.
    static let sessionSigninJoin = """
        LEFT JOIN LATERAL (
            SELECT e.occurred_at, e.data, e.ip FROM authlog.event_records e
            WHERE e.user_id = s.user_id AND e.type = 'signin.succeeded' AND e.occurred_at = s.started_at
              AND e.session_id = s.session_id
            LIMIT 1
        ) AS ss ON true
        """

    /// The ``SessionSignin`` of a row whose columns from `column` are ``sessionSigninColumns``.
    private static func sessionSignin(_ row: QueryRow, from column: Int) throws -> SessionSignin {
        let kinds =
            try row.decode(String?.self, at: column + 7)?.split(separator: ",")
            .compactMap { SigninJudgement.Kind(rawValue: String($0)) } ?? []
        return SessionSignin(
            signin: try SigninHistoryQueries.pastSignin(row, at: column),
            flaggedKinds: Set(kinds),
            wrappedUserKey: try row.decode(ByteaValue?.self, at: column + 8)?.bytes,
            address: try row.decode(IPAddress?.self, at: column + 9)
        )
    }

    /// One session, if it exists.
    /// - Throws: ``StoreError``.
    public func session(_ sessionID: UUID) async throws -> SessionRecord? {
        let row = try await self.pool.withConnection { connection in
            try await connection.query(
                """
                SELECT \(unescaped: Self.sessionColumns)
                FROM authlog.sessions s LEFT JOIN authlog.users u ON u.user_id = s.user_id
                WHERE s.session_id = \(sessionID)
                """
            ).first
        }
        guard let row else { return nil }
        return try Self.session(row, from: 0)
    }

    /// The active sessions of a user, or of a user with one provider, with each session stream's version.
    /// - Throws: ``StoreError``.
    public func activeSessions(
        of userID: UUID,
        provider: String? = nil
    ) async throws -> [(
        session: SessionRecord, version: Int32
    )] {
        let rows = try await self.pool.withConnection { connection in
            try await connection.query(
                """
                SELECT \(unescaped: Self.sessionColumns),
                       (SELECT max(e.stream_version) FROM authlog.event_records e
                        WHERE e.stream = 'session-' || s.session_id::text)
                FROM authlog.sessions s LEFT JOIN authlog.users u ON u.user_id = s.user_id
                WHERE s.user_id = \(userID) AND s.state = 'active'
                  AND (\(provider)::text IS NULL OR s.provider = \(provider))
                ORDER BY s.started_at
                """
            ).rows
        }
        return try rows.map { (try Self.session($0, from: 0), try $0.decode(Int32?.self, at: 11) ?? 0) }
    }

    /// Every session of a user, active or ended, newest first.
    /// - Throws: ``StoreError``.
    public func sessions(of userID: UUID) async throws -> [SessionRecord] {
        try await self.pool.withConnection { try await Self.sessions(of: userID, on: $0) }
    }

    /// ``sessions(of:)`` on a given connection (a read replica's, for the audited listings).
    /// - Throws: ``StoreError``.
    public static func sessions(of userID: UUID, on connection: Connection) async throws -> [SessionRecord] {
        let rows = try await connection.query(
            """
            SELECT \(unescaped: Self.sessionColumns)
            FROM authlog.sessions s LEFT JOIN authlog.users u ON u.user_id = s.user_id
            WHERE s.user_id = \(userID)
            ORDER BY s.started_at DESC, s.session_id
            """
        ).rows
        return try rows.map { try Self.session($0, from: 0) }
    }

    /// Whether a user with this id was ever registered (deleted users included).
    /// - Throws: ``StoreError``.
    public func userExists(_ userID: UUID) async throws -> Bool {
        try await self.pool.withConnection { connection in
            try await connection.query(
                "SELECT EXISTS (SELECT 1 FROM authlog.users WHERE user_id = \(userID))"
            ).first?.decode(Bool.self, at: 0) ?? false
        }
    }

    /// Whether the user exists and is not deleted.
    /// - Throws: ``StoreError``.
    public func userIsActive(_ userID: UUID) async throws -> Bool {
        try await self.pool.withConnection { connection in
            try await connection.query(
                "SELECT EXISTS (SELECT 1 FROM authlog.users WHERE user_id = \(userID) AND status = 'active')"
            ).first?.decode(Bool.self, at: 0) ?? false
        }
    }

    /// Whether the database answers.
    public func isReachable() async -> Bool {
        (try? await self.pool.withConnection { try await $0.query("SELECT 1").rows.count == 1 }) ?? false
    }

    /// The session columns every session read selects, in the order ``session(_:from:)`` decodes (11).
    static let sessionColumns = """
        s.session_id, s.user_id, s.provider, s.client_id, s.kind, s.state, s.started_at, s.last_seen_at,
        s.authenticated_at, s.end_reason, coalesce(u.status = 'active', false)
        """

    static func session(_ row: QueryRow, from start: Int) throws -> SessionRecord {
        guard let kind = RefreshTokenKind(rawValue: try row.decode(String.self, at: start + 4)),
            let state = SessionState(rawValue: try row.decode(String.self, at: start + 5))
        else { throw StoreError(.decoding, "sessions.kind or sessions.state has an unknown value") }
        return SessionRecord(
            sessionID: try row.decode(UUID.self, at: start),
            userID: try row.decode(UUID.self, at: start + 1),
            provider: try row.decode(String.self, at: start + 2),
            clientID: try row.decode(String?.self, at: start + 3),
            kind: kind,
            state: state,
            startedAt: try row.decode(Timestamp.self, at: start + 6),
            lastSeenAt: try row.decode(Timestamp.self, at: start + 7),
            authenticatedAt: try row.decode(Timestamp.self, at: start + 8),
            endReason: try row.decode(String?.self, at: start + 9),
            userIsActive: try row.decode(Bool.self, at: start + 10)
        )
    }

    static func identity(_ row: QueryRow) throws -> IdentityRecord {
        IdentityRecord(
            provider: try row.decode(String.self, at: 0),
            subjectHash: try row.decode(String.self, at: 1),
            userID: try row.decode(UUID.self, at: 2),
            isReleased: try row.decode(Bool.self, at: 3),
            userIsActive: try row.decode(Bool.self, at: 4)
        )
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66)
    }
}
