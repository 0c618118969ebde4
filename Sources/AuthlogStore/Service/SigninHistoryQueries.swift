public import AuthlogCore
public import AuthlogPostgres
public import Foundation

/// A user's recent successful sign-ins, read from their `signin.succeeded` events (index
/// `event_records_user_signins`), with their wrapped key, in one statement, and summed up in Swift by the
/// function every store uses.
public struct SigninHistoryQueries: SigninHistoryReads {
    let pool: ConnectionPool

    /// Creates the reads over `pool`.
    public init(pool: ConnectionPool) { self.pool = pool }

    /// The history of the newest `limit` `signin.succeeded` of `userID` (at most `devices` devices and `areas`
    /// countries and regions, newest first), the newest sealed place among them, and the user's wrapped key, in
    /// one statement: the sign-ins' rows, summed up as every store sums them (``RecentSignins/summing(_:devices:areas:wrappedUserKey:)``).
    /// - Throws: ``StoreError``.
    public func recentSignins(of userID: UUID, limit: Int, devices: Int, areas: Int) async throws -> RecentSignins {
        var query = SQLQuery(
            unsafeSQL: "SELECT k.wrapped_key, d.keys, d.ats, s.* FROM (SELECT 1) AS one LEFT JOIN "
        )
        let user = query.bind(userID) + "::uuid"
        query.append(
            unescaped: """
                authlog.user_keys k ON k.user_id = \(user)
                LEFT JOIN LATERAL (\(Self.disownedDevices(user: user))) AS d ON true
                LEFT JOIN LATERAL (\(Self.newestSignins(user: user, limit: limit, disowned: "d.pairs"))) AS s ON true
                """
        )
        let rows = try await self.pool.withConnection { try await $0.query(query).rows }
        var read = ReadHistory()
        for row in rows { try read.add(row, from: 0) }
        return read.summed(devices: devices, areas: areas)
    }

    /// The device key the `signin.succeeded` `eventID` of `userID` recorded; nil when there is no such sign-in
    /// or it recorded none.
    /// - Throws: ``StoreError``.
    public func deviceKey(ofSignin eventID: UUID, of userID: UUID) async throws -> String? {
        var query = SQLQuery(unsafeSQL: "SELECT e.data->>'device_key' FROM authlog.event_records e WHERE ")
        let event = query.bind(eventID)
        let user = query.bind(userID)
        query.append(
            unescaped: "e.event_id = \(event)::uuid AND e.user_id = \(user)::uuid AND e.type = 'signin.succeeded'"
        )
        let rows = try await self.pool.withConnection { try await $0.query(query).rows }
        return try rows.first?.decode(String?.self, at: 0)
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
        let linked = "i.released_at IS NULL AND u.status = 'active'"
        let query = SessionQueries.identityLookup(
            provider: provider,
            subjectHashes: subjectHashes,
            columns: ", k.wrapped_key, d.keys, d.ats, s.*",
            joining: """
                LEFT JOIN authlog.user_keys k ON k.user_id = i.user_id AND \(linked)
                LEFT JOIN LATERAL (\(Self.disownedDevices(user: "i.user_id"))) AS d ON \(linked)
                LEFT JOIN LATERAL (\(Self.newestSignins(user: "i.user_id", limit: limit, disowned: "d.pairs"))) AS s
                    ON \(linked)
                """
        )
        let rows = try await self.pool.withConnection { try await $0.query(query).rows }
        var found: [String: (identity: IdentityRecord, history: ReadHistory)] = [:]
        for row in rows {
            let identity = try SessionQueries.identity(row)
            var history = found[identity.subjectHash]?.history ?? ReadHistory()
            try history.add(row, from: 5)
            found[identity.subjectHash] = (identity, history)
        }
        return found.mapValues { identity, history in
            let linked = !identity.isReleased && identity.userIsActive
            return (identity, linked ? history.summed(devices: devices, areas: areas) : nil)
        }
    }

    /// The newest `limit` `signin.succeeded` of the user `user` (an SQL expression: a parameter or a column),
    /// newest first: each one's `occurred_at` and ``sightingColumns(_:)``, as ``pastSignin(_:at:)`` decodes them.
    /// `disowned`, when given, is an SQL expression of the user's disowned devices (``disownedDevices(user:)``'s
    /// `pairs`): their sign-ins up to each report are left out before the limit.
    static func newestSignins(user: String, limit: Int, disowned: String? = nil) -> String {
        let leavingOut =
            disowned.map {
                """
                AND NOT EXISTS (SELECT FROM jsonb_to_recordset(\($0)) AS p(key text, at timestamptz)
                    WHERE p.key = e.data->>'device_key' AND e.occurred_at <= p.at)
                """
            } ?? ""
        return """
            SELECT e.occurred_at, \(Self.sightingColumns("e.data")) FROM authlog.event_records e
            WHERE e.user_id = \(user) AND e.type = 'signin.succeeded' \(leavingOut)
            ORDER BY e.occurred_at DESC LIMIT \(max(limit, 0))
            """
    }

    /// The devices the user `user` (an SQL expression) disowned in their newest 100 `account.not_me_reported`
    /// (index `event_records_user_not_me`), each with when its report was made, or NULLs: `keys` (space-separated;
    /// keys are hex) and `ats` (microseconds since 1970, in the same order) for Swift, and `pairs` (a JSON list of
    /// `{key, at}`) for ``newestSignins(user:limit:disowned:)``. A member that is not a list (an ingested event of
    /// another shape) disowns nothing.
    static func disownedDevices(user: String) -> String {
        """
        SELECT string_agg(k.key, ' ' ORDER BY r.occurred_at, k.key) AS keys,
               string_agg((extract(epoch FROM r.occurred_at) * 1000000)::bigint::text, ' '
                          ORDER BY r.occurred_at, k.key) AS ats,
               jsonb_agg(jsonb_build_object('key', k.key, 'at', r.occurred_at)) AS pairs
        FROM (
            SELECT r.data, r.occurred_at FROM authlog.event_records r
            WHERE r.user_id = \(user) AND r.user_id IS NOT NULL AND r.type = 'account.not_me_reported'
            ORDER BY r.occurred_at DESC LIMIT 100
        ) AS r, jsonb_array_elements_text(
            CASE WHEN jsonb_typeof(r.data->'disowned_device_keys') = 'array' THEN r.data->'disowned_device_keys' END
        ) AS k(key)
        """
    }

    /// A user's wrapped key, disowned devices and newest sign-ins as their rows bring them: one row per sign-in
    /// (or one without any), each with the key and the disowned devices.
    private struct ReadHistory {
        var wrappedKey: [UInt8]?
        var disowned: [DisownedDevice] = []
        var signins: [PastSignin] = []

        /// Takes in a row whose column `column` is the wrapped key, the next two the disowned devices, then a
        /// sign-in's columns.
        mutating func add(_ row: QueryRow, from column: Int) throws {
            if let key = try row.decode(ByteaValue?.self, at: column) { self.wrappedKey = key.bytes }
            if let keys = try row.decode(String?.self, at: column + 1),
                let ats = try row.decode(String?.self, at: column + 2)
            {
                let times = ats.split(separator: " ").compactMap { Int64($0) }
                self.disowned = zip(keys.split(separator: " "), times).map {
                    DisownedDevice(key: String($0), at: Timestamp(microsecondsSinceEpoch: $1))
                }
            }
            if let signin = try SigninHistoryQueries.pastSignin(row, at: column + 3) { self.signins.append(signin) }
        }

        /// The history of the sign-ins, newest first, as every store sums it up.
        func summed(devices: Int, areas: Int) -> RecentSignins {
            RecentSignins.summing(
                self.signins.sorted { $0.at > $1.at },
                devices: devices,
                areas: areas,
                wrappedUserKey: self.wrappedKey,
                disowned: self.disowned
            )
        }
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
