public import AuthlogCore
public import AuthlogPostgres
public import Foundation

/// A user's recent successful sign-ins, read from their `signin.succeeded` events (index
/// `event_records_user_signins`), with their wrapped key, in one statement.
public struct SigninHistoryQueries: SigninHistoryReads {
    let pool: ConnectionPool

    /// Creates the reads over `pool`.
    public init(pool: ConnectionPool) { self.pool = pool }

    /// The newest `limit` `signin.succeeded` of `userID`, newest first, and the user's wrapped key.
    /// - Throws: ``StoreError``.
    public func recentSignins(of userID: UUID, limit: Int) async throws -> RecentSignins {
        let rows = try await self.pool.withConnection { connection in
            try await connection.query(
                """
                SELECT k.wrapped_key, s.occurred_at, s.data->>'device_key', s.data->>'device_family',
                    s.data->>'country', s.data->>'region', s.data->>'sealed_place'
                FROM (SELECT 1) AS one
                LEFT JOIN authlog.user_keys k ON k.user_id = \(userID)
                LEFT JOIN LATERAL (
                    SELECT e.occurred_at, e.data FROM authlog.event_records e
                    WHERE e.user_id = \(userID) AND e.type = 'signin.succeeded'
                    ORDER BY e.occurred_at DESC LIMIT \(max(limit, 0))
                ) AS s ON true
                ORDER BY s.occurred_at DESC
                """
            ).rows
        }
        var recent = RecentSignins(wrappedUserKey: try rows.first?.decode(ByteaValue?.self, at: 0)?.bytes)
        for row in rows {
            if let signin = try Self.pastSignin(row) { recent.signins.append(signin) }
        }
        return recent
    }

    /// The `signin.succeeded` of `session`, the kinds flagged on its admitted refreshes, and the user's wrapped
    /// key, in one statement.
    /// - Throws: ``StoreError``.
    public func sessionSignin(of userID: UUID, session: UUID) async throws -> SessionSignin {
        let rows = try await self.pool.withConnection { connection in
            try await connection.query(
                """
                SELECT k.wrapped_key, s.occurred_at, s.data->>'device_key', s.data->>'device_family',
                    s.data->>'country', s.data->>'region', s.data->>'sealed_place',
                    (SELECT string_agg(DISTINCT j->>'kind', ',')
                     FROM authlog.event_records f, jsonb_array_elements(f.data->'judgements') j
                     WHERE f.user_id = \(userID) AND f.type = 'signin.flagged' AND f.session_id = \(session)
                       AND f.data->>'decision' IN ('recorded', 'reauthenticated'))
                FROM (SELECT 1) AS one
                LEFT JOIN authlog.user_keys k ON k.user_id = \(userID)
                LEFT JOIN LATERAL (
                    SELECT e.occurred_at, e.data FROM authlog.event_records e
                    WHERE e.user_id = \(userID) AND e.type = 'signin.succeeded' AND e.session_id = \(session)
                    ORDER BY e.occurred_at DESC LIMIT 1
                ) AS s ON true
                """
            ).rows
        }
        guard let row = rows.first else { return SessionSignin() }
        let kinds =
            try row.decode(String?.self, at: 7)?.split(separator: ",")
            .compactMap { SigninJudgement.Kind(rawValue: String($0)) } ?? []
        return SessionSignin(
            signin: try Self.pastSignin(row),
            flaggedKinds: Set(kinds),
            wrappedUserKey: try row.decode(ByteaValue?.self, at: 0)?.bytes
        )
    }

    /// The sign-in of a row whose columns 1 to 6 are `occurred_at` and `data`'s sighting members; nil when the
    /// row has none.
    private static func pastSignin(_ row: QueryRow) throws -> PastSignin? {
        guard let at = try row.decode(Timestamp?.self, at: 1) else { return nil }
        var sighting: SigninSighting?
        if let key = try row.decode(String?.self, at: 2), let family = try row.decode(String?.self, at: 3) {
            sighting = SigninSighting(
                deviceKey: key,
                deviceFamily: family,
                country: try row.decode(String?.self, at: 4),
                region: try row.decode(String?.self, at: 5),
                sealedPlace: try row.decode(String?.self, at: 6)
            )
        }
        return PastSignin(at: at, sighting: sighting)
    }
}
