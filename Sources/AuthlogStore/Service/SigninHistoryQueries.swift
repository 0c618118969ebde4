public import AuthlogCore
public import AuthlogPostgres
public import Foundation

/// A user's recent successful sign-ins, read from their `signin.succeeded` events (index
/// `event_records_user_signins`), with their wrapped key, in one statement.
public struct SigninHistoryQueries: SigninHistoryReads {
    let pool: ConnectionPool

    /// Creates the reads over `pool`.
    public init(pool: ConnectionPool) { self.pool = pool }

    /// The newest `limit` `signin.succeeded` of `userID`, newest first, and the user's wrapped key; of the sealed
    /// places only the newest is read (the judge opens no other).
    /// - Throws: ``StoreError``.
    public func recentSignins(of userID: UUID, limit: Int) async throws -> RecentSignins {
        let rows = try await self.pool.withConnection { connection in
            try await connection.query(
                """
                WITH recent AS (
                    SELECT e.occurred_at, e.data FROM authlog.event_records e
                    WHERE e.user_id = \(userID) AND e.type = 'signin.succeeded'
                    ORDER BY e.occurred_at DESC LIMIT \(max(limit, 0))
                )
                SELECT k.wrapped_key, r.occurred_at, r.data->>'device_key', r.data->>'device_family',
                    r.data->>'country', r.data->>'region',
                    CASE WHEN r.occurred_at = (SELECT max(occurred_at) FROM recent WHERE data ? 'sealed_place')
                         THEN r.data->>'sealed_place' END,
                    r.data->>'device_id_sent' = 'true'
                FROM (SELECT 1) AS one
                LEFT JOIN authlog.user_keys k ON k.user_id = \(userID)
                LEFT JOIN recent r ON true
                ORDER BY r.occurred_at DESC
                """
            ).rows
        }
        var recent = RecentSignins(wrappedUserKey: try rows.first?.decode(ByteaValue?.self, at: 0)?.bytes)
        for row in rows {
            if let signin = try Self.pastSignin(row) { recent.signins.append(signin) }
        }
        return recent
    }

    /// The members of a `signin.succeeded`'s `data` (the SQL expression `data`) that ``pastSignin(_:at:)``
    /// decodes after its `occurred_at`.
    static func sightingColumns(_ data: String) -> String {
        """
        \(data)->>'device_key', \(data)->>'device_family', \(data)->>'country', \(data)->>'region',
            \(data)->>'sealed_place', \(data)->>'device_id_sent' = 'true'
        """
    }

    /// The sign-in of a row whose column `column` is its `occurred_at` and the next six ``sightingColumns(_:)``;
    /// nil when the row has none.
    static func pastSignin(_ row: QueryRow, at column: Int = 1) throws -> PastSignin? {
        guard let at = try row.decode(Timestamp?.self, at: column) else { return nil }
        var sighting: SigninSighting?
        if let key = try row.decode(String?.self, at: column + 1),
            let family = try row.decode(String?.self, at: column + 2)
        {
            sighting = SigninSighting(
                deviceKey: key,
                deviceFamily: family,
                country: try row.decode(String?.self, at: column + 3),
                region: try row.decode(String?.self, at: column + 4),
                sealedPlace: try row.decode(String?.self, at: column + 5),
                byDeviceID: try row.decode(Bool?.self, at: column + 6) ?? false
            )
        }
        return PastSignin(at: at, sighting: sighting)
    }
}
