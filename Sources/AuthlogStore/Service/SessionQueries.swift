import AuthlogCore
public import Foundation

/// The request-time reads of the sign-in service, all on projection tables (plus the session stream's
/// version from the events' unique `(stream, stream_version)` index).
public struct SessionQueries: Sendable {
    private let pool: ConnectionPool

    /// Creates the queries over `pool`.
    public init(pool: ConnectionPool) { self.pool = pool }

    /// The user an identity belongs to, if it is linked.
    /// - Throws: ``StoreError``.
    public func userID(provider: String, subjectHash: String) async throws -> UUID? {
        try await self.pool.withConnection { connection in
            try await connection.query(
                """
                SELECT i.user_id FROM authlog.identities i JOIN authlog.users u USING (user_id)
                WHERE i.provider = \(provider) AND i.subject_hash = \(subjectHash) AND u.status = 'active'
                """
            ).first?.decode(UUID.self, at: 0)
        }
    }

    /// The refresh token whose SHA-256 is `hash`, if any.
    /// - Throws: ``StoreError``.
    public func refreshToken(hash: [UInt8]) async throws -> RefreshTokenRecord? {
        let row = try await self.pool.withConnection { connection in
            try await connection.query(
                """
                SELECT t.token_id, t.family_id, t.session_id, t.user_id, t.provider, t.kind, t.state, t.expires_at,
                       s.state, s.client_id,
                       (SELECT max(e.stream_version) FROM authlog.events e
                        WHERE e.stream = 'session-' || t.session_id::text)
                FROM authlog.refresh_tokens t JOIN authlog.sessions s USING (session_id)
                WHERE t.token_hash = \(ByteaValue(hash))
                """
            ).first
        }
        guard let row else { return nil }
        guard let kind = RefreshTokenKind(rawValue: try row.decode(String.self, at: 5)) else {
            throw StoreError(.decoding, "refresh_tokens.kind has an unknown value")
        }
        return RefreshTokenRecord(
            tokenID: try row.decode(UUID.self, at: 0),
            familyID: try row.decode(UUID.self, at: 1),
            sessionID: try row.decode(UUID.self, at: 2),
            userID: try row.decode(UUID.self, at: 3),
            provider: try row.decode(String?.self, at: 4),
            kind: kind,
            state: try row.decode(String.self, at: 6),
            expiresAt: try row.decode(Timestamp.self, at: 7),
            sessionState: try row.decode(String.self, at: 8),
            clientID: try row.decode(String?.self, at: 9),
            sessionVersion: try row.decode(Int32?.self, at: 10) ?? 0
        )
    }

    /// One session, if it exists.
    /// - Throws: ``StoreError``.
    public func session(_ sessionID: UUID) async throws -> SessionRecord? {
        let row = try await self.pool.withConnection { connection in
            try await connection.query(
                """
                SELECT session_id, user_id, provider, client_id, state, started_at, end_reason
                FROM authlog.sessions WHERE session_id = \(sessionID)
                """
            ).first
        }
        guard let row else { return nil }
        return SessionRecord(
            sessionID: try row.decode(UUID.self, at: 0),
            userID: try row.decode(UUID.self, at: 1),
            provider: try row.decode(String.self, at: 2),
            clientID: try row.decode(String?.self, at: 3),
            state: try row.decode(String.self, at: 4),
            startedAt: try row.decode(Timestamp.self, at: 5),
            endReason: try row.decode(String?.self, at: 6)
        )
    }

    /// Whether the database answers.
    public func isReachable() async -> Bool {
        (try? await self.pool.withConnection { try await $0.query("SELECT 1").rows.count == 1 }) ?? false
    }
}
