import AuthlogCore
import AuthlogPostgres

/// The SQL side of a report: the roll-ups' counts of a range, summed per group.
enum ReportGroups {
    /// The sum of one metric and detail in one group.
    struct Group: Sendable, Equatable {
        /// Whether the count is of the range itself (false: of everything before it, for sessions still
        /// active at its start).
        var inRange: Bool
        /// The UTC day (`YYYY-MM-DD`) when grouped by day and in range; otherwise empty.
        var day: String
        /// The provider when grouped by provider; otherwise empty.
        var provider: String
        /// The client id when grouped by client; otherwise empty.
        var client: String
        /// `signin.succeeded`, `signin.failed`, `session.started`, `session.ended` or `refused`.
        var metric: String
        /// The failure reason, the session's end cause, or what refused the requests (``RefusalReason``).
        var detail: String
        /// The count: items, or for `refused` the requests the events account for.
        var count: Int64
    }

    /// Reads the groups of `[since, until)` and, `withHistory`, of everything before `since` (without days).
    static func read(
        metrics: [String],
        since: Timestamp,
        until: Timestamp,
        dimensions: [Report.Dimension],
        withHistory: Bool,
        on connection: Connection
    ) async throws -> [Group] {
        var query = SQLQuery(unsafeSQL: "SELECT in_range, ")
        query.append(unescaped: dimensions.contains(.day) ? "CASE WHEN in_range THEN day ELSE '' END, " : "'', ")
        query.append(unescaped: dimensions.contains(.provider) ? "provider, " : "'', ")
        query.append(unescaped: dimensions.contains(.client) ? "client_id, " : "'', ")
        query.append(unescaped: "metric, detail, sum(n)::bigint FROM (")
        Self.appendPart(to: &query, metrics: metrics, from: since, to: until, inRange: true)
        if withHistory {
            query.append(unescaped: " UNION ALL ")
            Self.appendPart(to: &query, metrics: metrics, from: nil, to: since, inRange: false)
        }
        query.append(unescaped: ") AS counted GROUP BY 1, 2, 3, 4, 5, 6")
        return try await connection.query(query).rows.map { row in
            Group(
                inRange: try row.decode(Bool.self, at: 0),
                day: try row.decode(String.self, at: 1),
                provider: try row.decode(String.self, at: 2),
                client: try row.decode(String.self, at: 3),
                metric: try row.decode(String.self, at: 4),
                detail: try row.decode(String.self, at: 5),
                count: try row.decode(Int64.self, at: 6)
            )
        }
    }

    /// Appends the counted items of `[from, to)` (`from` nil: from the beginning): whole days from the
    /// daily roll-ups, the other whole hours from the hourly ones (and from what waits to be folded), the
    /// partial hours at the edges item by item.
    private static func appendPart(
        to query: inout SQLQuery,
        metrics: [String],
        from: Timestamp?,
        to: Timestamp,
        inRange: Bool
    ) {
        let bounds = ReportBounds(from: from, to: to)
        func bind(_ time: Timestamp?) -> String { query.bind(time?.sqlText ?? "-infinity") }
        let metricList = query.bind(ArrayLiteral(metrics))
        let start = bind(from)
        let end = bind(to)
        let hoursLow = bind(bounds.hoursLow)
        let daysLow = bind(bounds.daysLow)
        let daysHigh = bind(bounds.daysHigh)
        let hoursHigh = bind(bounds.hoursHigh)
        query.append(
            unescaped: """
                SELECT \(inRange) AS in_range, (at AT TIME ZONE 'UTC')::date::text AS day, provider, client_id,
                       metric, detail, n
                FROM (
                    SELECT day AS at, metric, provider, client_id, detail, n FROM authlog.report_counts_daily
                    WHERE metric = ANY(\(metricList)::text[])
                      AND day >= \(daysLow)::timestamptz AND day < \(daysHigh)::timestamptz
                    UNION ALL
                    SELECT hour, metric, provider, client_id, detail, n FROM authlog.report_counts
                    WHERE metric = ANY(\(metricList)::text[])
                      AND ((hour >= \(hoursLow)::timestamptz AND hour < \(daysLow)::timestamptz)
                           OR (hour >= \(daysHigh)::timestamptz AND hour < \(hoursHigh)::timestamptz))
                    UNION ALL
                    SELECT hour, metric, provider, client_id, detail, n FROM authlog.report_pending
                    WHERE metric = ANY(\(metricList)::text[])
                      AND hour >= \(hoursLow)::timestamptz AND hour < \(hoursHigh)::timestamptz
                    UNION ALL
                    SELECT at, metric, provider, client_id, detail, n FROM authlog.report_items
                    WHERE metric = ANY(\(metricList)::text[])
                      AND ((at >= \(start)::timestamptz AND at < \(hoursLow)::timestamptz)
                           OR (at >= \(hoursHigh)::timestamptz AND at < \(end)::timestamptz))
                ) AS items
                """
        )
    }
}

/// How a range `[from, to)` splits by grain: `from ≤ hoursLow ≤ daysLow ≤ daysHigh ≤ hoursHigh ≤ to`, with
/// whole days in `[daysLow, daysHigh)`, whole hours in `[hoursLow, daysLow)` and `[daysHigh, hoursHigh)`, and
/// items in `[from, hoursLow)` and `[hoursHigh, to)`. A nil low bound is the beginning of time.
struct ReportBounds: Equatable {
    var hoursLow: Timestamp?
    var daysLow: Timestamp?
    var daysHigh: Timestamp
    var hoursHigh: Timestamp

    init(from: Timestamp?, to: Timestamp) {
        let hoursLow = from.map { ReportHours.ceiling($0, grain: ReportHours.hour) }
        let hoursHigh = ReportHours.floor(to, grain: ReportHours.hour)
        guard hoursLow.map({ $0 < hoursHigh }) ?? true else {
            // Inside one or two partial hours: everything item by item.
            (self.hoursLow, self.daysLow, self.daysHigh, self.hoursHigh) = (to, to, to, to)
            return
        }
        let daysLow = hoursLow.map { ReportHours.ceiling($0, grain: ReportHours.day) }
        let daysHigh = ReportHours.floor(hoursHigh, grain: ReportHours.day)
        self.hoursLow = hoursLow
        self.hoursHigh = hoursHigh
        if daysLow.map({ $0 < daysHigh }) ?? true {
            self.daysLow = daysLow
            self.daysHigh = daysHigh
        } else {
            self.daysLow = hoursHigh
            self.daysHigh = hoursHigh
        }
    }
}
