public import AuthlogCore
public import AuthlogPostgres
public import Foundation

/// A user as the projections and its registration event know it, for operators' read paths.
public struct UserRecord: Sendable {
    /// The user.
    public var userID: UUID
    /// `active` or `deleted`.
    public var status: String
    /// When the user registered.
    public var createdAt: Timestamp
    /// When the account was deleted, if it was.
    public var deletedAt: Timestamp?
    /// Every identity row of the user: provider, and whether it was released by the deletion.
    public var identities: [(provider: String, isReleased: Bool)]
    /// The sealed profile of the registration event, if it kept one.
    public var sealedProfile: String?
    /// How many of the user's sessions are active.
    public var activeSessions: Int64
}

/// Reads one user for `authlog users show`.
public struct UserRecordQueries: Sendable {
    private let pool: ConnectionPool

    /// Creates the queries over `pool`.
    public init(pool: ConnectionPool) { self.pool = pool }

    /// The user, or `nil` when no user has this id.
    /// - Throws: ``StoreError``.
    public func user(_ userID: UUID) async throws -> UserRecord? {
        try await self.pool.withConnection { connection in
            guard
                let row = try await connection.query(
                    """
                    SELECT u.status, u.created_at, u.deleted_at,
                           (SELECT e.data->>'sealed_profile' FROM authlog.event_records e
                            WHERE e.stream = 'user-' || u.user_id::text AND e.type = 'user.registered'
                            ORDER BY e.stream_version LIMIT 1),
                           (SELECT count(*) FROM authlog.sessions s WHERE s.user_id = u.user_id AND s.state = 'active')
                    FROM authlog.users u WHERE u.user_id = \(userID)
                    """
                ).first
            else { return nil }
            let identities = try await connection.query(
                """
                SELECT provider, released_at IS NOT NULL FROM authlog.identities
                WHERE user_id = \(userID) ORDER BY linked_at, provider
                """
            ).rows.map { (provider: try $0.decode(String.self, at: 0), isReleased: try $0.decode(Bool.self, at: 1)) }
            return UserRecord(
                userID: userID,
                status: try row.decode(String.self, at: 0),
                createdAt: try row.decode(Timestamp.self, at: 1),
                deletedAt: try row.decode(Timestamp?.self, at: 2),
                identities: identities,
                sealedProfile: try row.decode(String?.self, at: 3),
                activeSessions: try row.decode(Int64.self, at: 4)
            )
        }
    }
}
