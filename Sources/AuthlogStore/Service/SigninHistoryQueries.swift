public import AuthlogCore
public import AuthlogPostgres
public import Foundation

/// A user's recent successful sign-ins, read from their `signin.succeeded` events (index
/// `event_records_user_signins`), with their wrapped key, in one statement.
public struct SigninHistoryQueries: SigninHistoryReads {
    let pool: ConnectionPool

    /// Creates the reads over `pool`.
    public init(pool: ConnectionPool) { self.pool = pool }

    /// The history of the newest `limit` `signin.succeeded` of `userID`, summed up in SQL (one row: at most
    /// `devices` devices and `areas` countries and regions, newest first), the newest sealed place among them,
    /// and the user's wrapped key, in one statement.
    /// - Throws: ``StoreError``.
    public func recentSignins(of userID: UUID, limit: Int, devices: Int, areas: Int) async throws -> RecentSignins {
        var query = SQLQuery(unsafeSQL: "SELECT * FROM (")
        let user = query.bind(userID) + "::uuid"
        query.append(unescaped: Self.summary(user: user, limit: limit, devices: devices, areas: areas) + ") AS h")
        let row = try await self.pool.withConnection { try await $0.query(query).first }
        guard let row else { return RecentSignins() }
        return try Self.recentSignins(row, from: 0)
    }

    /// The identity rows of `provider` whose subject hash is one of `subjectHashes`, each linked to an active
    /// user with that user's history (``recentSignins(of:limit:devices:areas:)``), in one statement: the sign-in
    /// looks its identity up anyway, so its history costs no round trip of its own.
    /// - Throws: ``StoreError``.
    public func identitiesWithHistory(
        provider: String,
        subjectHashes: [String],
        limit: Int,
        devices: Int,
        areas: Int
    ) async throws -> [String: (identity: IdentityRecord, history: RecentSignins?)] {
        let query = SessionQueries.identityLookup(
            provider: provider,
            subjectHashes: subjectHashes,
            columns: ", h.*",
            joining: """
                LEFT JOIN LATERAL (\(Self.summary(user: "i.user_id", limit: limit, devices: devices, areas: areas)))
                    AS h ON i.released_at IS NULL AND u.status = 'active'
                """
        )
        let rows = try await self.pool.withConnection { try await $0.query(query).rows }
        var found: [String: (identity: IdentityRecord, history: RecentSignins?)] = [:]
        for row in rows {
            let identity = try SessionQueries.identity(row)
            let linked = !identity.isReleased && identity.userIsActive
            found[identity.subjectHash] = (identity, linked ? try Self.recentSignins(row, from: 5) : nil)
        }
        return found
    }

    /// The one-row summary of the newest `limit` `signin.succeeded` of the user `user` (an SQL expression: a
    /// parameter or a column), in the columns ``recentSignins(_:from:)`` decodes.
    static func summary(user: String, limit: Int, devices: Int, areas: Int) -> String {
        """
        WITH recent AS (
            SELECT e.occurred_at AS at, e.data FROM authlog.event_records e
            WHERE e.user_id = \(user) AND e.type = 'signin.succeeded'
            ORDER BY e.occurred_at DESC LIMIT \(max(limit, 0))
        ), sighted AS (
            SELECT at, data->>'device_key' AS device, data->>'country' AS country, data->>'region' AS region,
                data->>'sealed_place' AS sealed
            FROM recent WHERE data ? 'device_key' AND data ? 'device_family'
        )
        SELECT (SELECT count(*) FROM sighted) AS sighted_signins,
            (SELECT json_agg(json_build_array(device, (extract(epoch FROM seen) * 1000000)::bigint)
                             ORDER BY seen DESC, device)
             FROM (SELECT device, max(at) AS seen FROM sighted GROUP BY device
                   ORDER BY seen DESC, device LIMIT \(max(devices, 0))) AS d) AS devices,
            (SELECT json_agg(json_build_array(country, region, (extract(epoch FROM seen) * 1000000)::bigint)
                             ORDER BY seen DESC, country, region)
             FROM (SELECT country, region, max(at) AS seen FROM sighted WHERE country IS NOT NULL
                   GROUP BY country, region ORDER BY seen DESC, country, region LIMIT \(max(areas, 0))) AS a) AS areas,
            p.at AS sealed_at, p.sealed, p.country AS sealed_country,
            (SELECT k.wrapped_key FROM authlog.user_keys k WHERE k.user_id = \(user)) AS wrapped_key
        FROM (SELECT 1) AS one
        LEFT JOIN LATERAL (
            SELECT at, sealed, country FROM sighted WHERE sealed IS NOT NULL ORDER BY at DESC LIMIT 1
        ) AS p ON true
        """
    }

    /// The ``RecentSignins`` of a row whose columns from `column` are ``summary(user:limit:devices:areas:)``'s.
    static func recentSignins(_ row: QueryRow, from column: Int) throws -> RecentSignins {
        var history = SigninHistory()
        history.signins = try row.decode(Int?.self, at: column) ?? 0
        for item in Self.items(try row.decode(JSONValue?.self, at: column + 1)) {
            guard item.count == 2, let key = item[0].stringValue, let seen = Self.timestamp(item[1]) else { continue }
            history.devices.append(.init(key: key, family: "", firstSeen: seen, lastSeen: seen))
        }
        for item in Self.items(try row.decode(JSONValue?.self, at: column + 2)) {
            guard item.count == 3, let country = item[0].stringValue, let seen = Self.timestamp(item[2]) else {
                continue
            }
            history.areas.append(.init(country: country, region: item[1].stringValue, lastSeen: seen))
        }
        var newestSealed: SealedSighting?
        if let at = try row.decode(Timestamp?.self, at: column + 3),
            let sealed = try row.decode(String?.self, at: column + 4)
        {
            newestSealed = SealedSighting(
                at: at,
                sealedPlace: sealed,
                country: try row.decode(String?.self, at: column + 5)
            )
        }
        return RecentSignins(
            history: history,
            newestSealed: newestSealed,
            wrappedUserKey: try row.decode(ByteaValue?.self, at: column + 6)?.bytes
        )
    }

    /// The arrays of a JSON array of arrays (none for null).
    private static func items(_ value: JSONValue?) -> [[JSONValue]] {
        guard case .array(let items) = value else { return [] }
        return items.compactMap { item in
            guard case .array(let members) = item else { return nil }
            return members
        }
    }

    /// Microseconds since 1970 as a JSON number.
    private static func timestamp(_ value: JSONValue) -> Timestamp? {
        guard case .number(let text) = value, let micros = Int64(text) else { return nil }
        return Timestamp(microsecondsSinceEpoch: micros)
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
