import AuthlogCore
public import AuthlogPostgres

/// Replays every event through ``ProjectionReducer`` into fresh tables and compares them with, or puts
/// them in place of, the live projections.
public struct ProjectionRebuilder: Sendable {
    /// A difference between the live and the rebuilt rows of one table.
    public struct Difference: Sendable, Equatable {
        /// The projection table.
        public var table: String
        /// Rows only in the live table (as PostgreSQL's row text), at most ten.
        public var onlyLive: [String]
        /// Rows only in the rebuilt table, at most ten.
        public var onlyRebuilt: [String]
        /// How many rows differ in all.
        public var count: Int
    }

    /// Events replayed per page.
    public var pageSize: Int
    /// The event key, for sealing what is queued before the rebuild (a log with one refuses to seal without).
    public var authenticator: EventAuthenticator?

    /// Once retention dropped the oldest months, the retained events alone do not make the projections (a
    /// user registered in a dropped month would vanish): rebuilding and checking are refused.
    private static func refuseAfterRetention(on connection: Connection) async throws {
        if let anchor = try await LogAnchor.latest(on: connection) {
            throw StoreError(
                .dropped,
                "retention dropped positions 1…\(anchor.size); the projections cannot be rebuilt from the retained "
                    + "events alone (they keep what the dropped events made)"
            )
        }
    }

    /// Creates a rebuilder.
    public init(pageSize: Int = 5000, authenticator: EventAuthenticator? = nil) {
        self.pageSize = pageSize
        self.authenticator = authenticator
    }

    /// Rebuilds into temporary tables and returns the differences from the live projections (empty when
    /// they match exactly). Reads one consistent snapshot, the sealed events and then the committed ones still
    /// waiting for the sealer (the projections already hold their changes); writers are not blocked.
    /// - Throws: ``StoreError`` from the server.
    public func check(
        on connection: Connection,
        progress: @Sendable (Int64) -> Void = { _ in }
    ) async throws -> [Difference] {
        try await Self.refuseAfterRetention(on: connection)
        // Ends with ROLLBACK: the temporary tables go with it.
        let checking = TransactionOptions(isolationLevel: .repeatableRead, discardsChanges: true)
        return try await connection.withTransaction(checking) { connection in
            try await self.replayIntoTemporaryTables(includingQueued: true, on: connection, progress: progress)
            var differences: [Difference] = []
            for table in ProjectionTable.allCases {
                if let difference = try await self.compare(table.rawValue, on: connection) {
                    differences.append(difference)
                }
            }
            if let difference = try await Self.compareReportCounts(on: connection) { differences.append(difference) }
            return differences
        }
    }

    /// Replaces the live projections with rebuilt ones. It locks out the writers (a SHARE lock on
    /// `authlog.event_records`), seals every committed event, and replays the sealed log. Returns the
    /// differences that were repaired.
    /// - Throws: ``StoreError`` from the server.
    public func rebuild(
        on connection: Connection,
        progress: @Sendable (Int64) -> Void = { _ in }
    ) async throws -> [Difference] {
        try await Self.refuseAfterRetention(on: connection)
        return try await connection.withTransaction { connection in
            try await connection.execute("LOCK TABLE authlog.event_records IN SHARE MODE")
            try await Self.sealEverything(authenticator: self.authenticator, on: connection)
            try await self.replayIntoTemporaryTables(includingQueued: false, on: connection, progress: progress)
            // Copying the rebuilt rows counts nothing (only the writers' statements count for the reports): the
            // roll-ups are counted again from the rebuilt tables below.
            var differences: [Difference] = []
            for table in ProjectionTable.allCases {
                if let difference = try await self.compare(table.rawValue, on: connection) {
                    differences.append(difference)
                }
                try await connection.execute(
                    SQLQuery(
                        unsafeSQL: """
                            DELETE FROM authlog.\(table.rawValue);
                            INSERT INTO authlog.\(table.rawValue) SELECT * FROM pg_temp.\(table.rawValue)
                            """
                    )
                )
            }
            if let difference = try await Self.compareReportCounts(on: connection) { differences.append(difference) }
            try await connection.execute("SELECT authlog.recount_reports()")
            return differences
        }
    }

    private static func sealEverything(authenticator: EventAuthenticator?, on connection: isolated Connection) throws {
        while try SealStep.run(ownsTransaction: false, authenticator: authenticator, on: connection).isEmpty == false {}
    }

    private func replayIntoTemporaryTables(
        includingQueued: Bool,
        on connection: Connection,
        progress: @Sendable (Int64) -> Void
    ) async throws {
        for table in ProjectionTable.allCases {
            try await connection.execute(
                SQLQuery(
                    unsafeSQL:
                        "CREATE TEMP TABLE \(table.rawValue) (LIKE authlog.\(table.rawValue) INCLUDING ALL) ON COMMIT DROP"
                )
            )
        }
        let reader = EventReader()
        let writer = ProjectionWriter(schema: "pg_temp")
        var position: Int64 = 0
        while true {
            let page = try await reader.events(after: position, limit: self.pageSize, on: connection)
            try await Self.apply(writer, try ScopedChange.changes(of: page), on: connection)
            position = page.last?.position ?? position
            progress(position)
            if page.count < self.pageSize { break }
        }
        if includingQueued {
            // Committed, not sealed yet: in queue order, which keeps every stream's order. Their sign-ins are
            // not counted yet: the sealer counts them (SealStep).
            let queued = try await connection.query(
                """
                SELECT \(unescaped: EventRow.columns(of: "r", position: "0", digest: "r.digest", leafHash: "r.digest"))
                FROM authlog.event_records r JOIN authlog.unsealed_events q ON q.event_id = r.event_id
                ORDER BY q.queued
                """
            )
            try await Self.apply(
                writer,
                try ScopedChange.changes(of: try queued.rows.map(EventRow.decode)),
                countingSignins: false,
                on: connection
            )
        }
        try await Self.keepSealedSuccessors(on: connection)
    }

    /// A rotated token's sealed answer (the refresh grace window, docs/signin.md) comes with its command, not
    /// from an event: the rebuilt row keeps the live one's while the rebuilt token is rotated too (run after
    /// every replayed event).
    private static func keepSealedSuccessors(on connection: Connection) async throws {
        try await connection.execute(
            """
            UPDATE pg_temp.refresh_tokens r SET successor_sealed = l.successor_sealed
            FROM authlog.refresh_tokens l
            WHERE l.token_hash = r.token_hash AND l.successor_sealed IS NOT NULL AND r.state = 'rotated'
            """
        )
    }

    private static func apply(
        _ writer: ProjectionWriter,
        _ changes: [ScopedChange],
        countingSignins: Bool = true,
        on connection: isolated Connection
    ) throws {
        try writer.apply(changes, countingSignins: countingSignins, on: connection)
    }

    private func compare(_ table: String, on connection: Connection) async throws -> Difference? {
        try await Self.compare(
            name: table,
            live: "SELECT * FROM authlog.\(table)",
            rebuilt: "SELECT * FROM pg_temp.\(table)",
            on: connection
        )
    }

    /// The report roll-ups, hourly and daily (each with what waits to be folded), against a count of their
    /// items from the events (sign-ins, and refusals by the requests they account for) and the rebuilt
    /// sessions (`pg_temp.sessions`; `authlog.report_items` counts the live ones the same way).
    private static func compareReportCounts(on connection: Connection) async throws -> Difference? {
        try await Self.compare(
            name: "report_counts",
            live: """
                SELECT 'hour', hour, metric, provider, client_id, detail, sum(n)::bigint FROM (
                    SELECT * FROM authlog.report_counts UNION ALL SELECT * FROM authlog.report_pending) c
                GROUP BY 1, 2, 3, 4, 5, 6 HAVING sum(n) <> 0
                UNION ALL
                SELECT 'day', day, metric, provider, client_id, detail, sum(n)::bigint FROM (
                    SELECT * FROM authlog.report_counts_daily
                    UNION ALL
                    SELECT date_trunc('day', hour, 'UTC'), metric, provider, client_id, detail, n
                    FROM authlog.report_pending) c
                GROUP BY 1, 2, 3, 4, 5, 6 HAVING sum(n) <> 0
                """,
            rebuilt: """
                WITH i AS (
                    SELECT at, metric, provider, client_id, detail, n FROM authlog.report_items
                    WHERE metric NOT IN ('session.started', 'session.ended')
                    UNION ALL
                    SELECT started_at, 'session.started', provider, coalesce(client_id, ''), '', 1
                    FROM pg_temp.sessions
                    UNION ALL
                    SELECT ended_at, 'session.ended', provider, coalesce(client_id, ''),
                           authlog.session_end_cause(state, end_reason), 1
                    FROM pg_temp.sessions WHERE state <> 'active')
                SELECT 'hour', date_trunc('hour', at, 'UTC'), metric, provider, client_id, detail, sum(n)::bigint
                FROM i GROUP BY 1, 2, 3, 4, 5, 6
                UNION ALL
                SELECT 'day', date_trunc('day', at, 'UTC'), metric, provider, client_id, detail, sum(n)::bigint
                FROM i GROUP BY 1, 2, 3, 4, 5, 6
                """,
            on: connection
        )
    }

    private static func compare(
        name table: String,
        live: String,
        rebuilt: String,
        on connection: Connection
    )
        async throws -> Difference?
    {
        let rows = try await connection.query(
            SQLQuery(
                unsafeSQL: """
                    SELECT 'live' AS side, d::text FROM ((\(live)) EXCEPT ALL (\(rebuilt))) d
                    UNION ALL
                    SELECT 'rebuilt', d::text FROM ((\(rebuilt)) EXCEPT ALL (\(live))) d
                    ORDER BY 1, 2
                    """
            )
        )
        guard !rows.rows.isEmpty else { return nil }
        var difference = Difference(table: table, onlyLive: [], onlyRebuilt: [], count: rows.rows.count)
        for row in rows.rows {
            let side = try row.decode(String.self, at: 0)
            let text = try row.decode(String.self, at: 1)
            if side == "live", difference.onlyLive.count < 10 { difference.onlyLive.append(text) }
            if side == "rebuilt", difference.onlyRebuilt.count < 10 { difference.onlyRebuilt.append(text) }
        }
        return difference
    }
}
