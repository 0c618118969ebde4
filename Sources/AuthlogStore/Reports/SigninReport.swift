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

    /// Computes the report from the events table (index `events_type_occurred_at`).
    /// - Throws: ``StoreError`` from the server.
    public static func make(since: Timestamp, until: Timestamp, on connection: Connection) async throws -> SigninReport {
        let perProvider = try await connection.query(
            """
            SELECT provider,
                   count(*) FILTER (WHERE type = 'signin.succeeded'),
                   count(*) FILTER (WHERE type = 'signin.failed'),
                   count(DISTINCT user_id) FILTER (WHERE type = 'signin.succeeded')
            FROM authlog.events
            WHERE type IN ('signin.succeeded', 'signin.failed')
              AND occurred_at >= \(since) AND occurred_at < \(until)
            GROUP BY provider ORDER BY provider
            """)
        let total = try await connection.query(
            """
            SELECT count(*) FILTER (WHERE type = 'signin.succeeded'),
                   count(*) FILTER (WHERE type = 'signin.failed'),
                   count(DISTINCT user_id) FILTER (WHERE type = 'signin.succeeded')
            FROM authlog.events
            WHERE type IN ('signin.succeeded', 'signin.failed')
              AND occurred_at >= \(since) AND occurred_at < \(until)
            """)
        let rows = try perProvider.rows.map { row in
            Row(
                provider: try row.decode(String?.self, at: 0) ?? "(none)", succeeded: try row.decode(Int64.self, at: 1),
                failed: try row.decode(Int64.self, at: 2), uniqueUsers: try row.decode(Int64.self, at: 3))
        }
        guard let totals = total.first else { throw StoreError(.server, "the total query returned no row") }
        let totalRow = Row(
            provider: "total", succeeded: try totals.decode(Int64.self, at: 0), failed: try totals.decode(Int64.self, at: 1),
            uniqueUsers: try totals.decode(Int64.self, at: 2))
        return SigninReport(since: since, until: until, rows: rows, total: totalRow)
    }
}
