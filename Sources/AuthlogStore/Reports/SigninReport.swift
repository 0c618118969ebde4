public import AuthlogCore

/// Sign-ins per provider over a time range, as `authlog report` prints them.
public struct SigninReport: Sendable, Equatable {
    /// One provider's numbers.
    public struct Row: Sendable, Equatable, Codable {
        /// The provider name.
        public var provider: String
        /// `signin.succeeded` events.
        public var succeeded: Int64
        /// `signin.failed` events.
        public var failed: Int64
        /// Distinct users among the successful sign-ins.
        public var uniqueUsers: Int64

        /// Creates a row.
        public init(provider: String, succeeded: Int64, failed: Int64, uniqueUsers: Int64) {
            self.provider = provider
            self.succeeded = succeeded
            self.failed = failed
            self.uniqueUsers = uniqueUsers
        }

        enum CodingKeys: String, CodingKey {
            case provider, succeeded, failed
            case uniqueUsers = "unique_users"
        }
    }

    /// The start of the range, inclusive.
    public var since: Timestamp
    /// The end of the range, exclusive.
    public var until: Timestamp
    /// One row per provider with any sign-in in the range, sorted by provider.
    public var rows: [Row]
    /// All providers together; `uniqueUsers` counts each user once even across providers.
    public var total: Row
    /// Set when the range reaches into months that retention dropped: their events are no longer counted.
    public var dropped: Retention.Dropped?

    /// Computes the report from the events table (index `events_type_occurred_at`).
    /// - Throws: ``StoreError`` from the server.
    public static func make(since: Timestamp, until: Timestamp, on connection: Connection) async throws -> SigninReport
    {
        // One pass: a row per provider, and the grand total (provider grouping flag set) in which each
        // user counts once across providers.
        let result = try await connection.query(
            """
            SELECT provider, grouping(provider) = 1,
                   count(*) FILTER (WHERE type = 'signin.succeeded'),
                   count(*) FILTER (WHERE type = 'signin.failed'),
                   count(DISTINCT user_id) FILTER (WHERE type = 'signin.succeeded')
            FROM authlog.events
            WHERE type IN ('signin.succeeded', 'signin.failed')
              AND occurred_at >= \(since) AND occurred_at < \(until)
            GROUP BY GROUPING SETS ((provider), ())
            ORDER BY 2, 1
            """
        )
        var rows: [Row] = []
        var totalRow = Row(provider: "total", succeeded: 0, failed: 0, uniqueUsers: 0)
        for row in result.rows {
            let isTotal = try row.decode(Bool.self, at: 1)
            let counts = Row(
                provider: isTotal ? "total" : try row.decode(String?.self, at: 0) ?? "(none)",
                succeeded: try row.decode(Int64.self, at: 2),
                failed: try row.decode(Int64.self, at: 3),
                uniqueUsers: try row.decode(Int64.self, at: 4)
            )
            if isTotal { totalRow = counts } else { rows.append(counts) }
        }
        var report = SigninReport(since: since, until: until, rows: rows, total: totalRow)
        if let dropped = try await Retention.dropped(on: connection), since < dropped.keptFrom {
            report.dropped = dropped
        }
        return report
    }
}
