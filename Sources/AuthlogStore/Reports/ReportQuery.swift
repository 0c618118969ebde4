public import AuthlogCore
public import AuthlogPostgres

/// Answers a ``Report`` from the roll-ups of migration 9 (refused requests counted since migration 19).
///
/// A range `[since, until)` is read in three parts: the whole hours inside it from `authlog.report_counts`
/// and `authlog.report_pending` (what the sealer has not folded yet), and the partial hours at its two edges
/// item by item from `authlog.report_items` (sign-in and refusal events by `occurred_at`, sessions by
/// `started_at` and `ended_at`, each through an index; a refusal event counts the requests it accounts for).
/// So a report reads a few thousand rows however many events the range holds, and a range may start and end
/// at any microsecond. Sessions active at the end of a group's range are the sessions started before that
/// end minus those ended before it, counted the same way from the beginning of the log.
///
/// Retention drops events but keeps the roll-ups, so a range over dropped months is still counted. Only its
/// edges cannot be read item by item there: an edge inside the dropped months is widened to the whole hour
/// (``Report/widened``).
public struct ReportQuery: Sendable, Equatable {
    /// The question.
    public var kind: Report.Kind
    /// The start of the range, inclusive.
    public var since: Timestamp
    /// The end of the range, exclusive.
    public var until: Timestamp
    /// The grouping, in any order and without repeats; the report orders it day, provider, client, reason.
    public var dimensions: [Report.Dimension]

    /// Why a query cannot be answered.
    public enum Problem: Error, Equatable, CustomStringConvertible {
        /// `since` is not before `until`.
        case emptyRange
        /// The kind cannot be grouped by this dimension.
        case unsupported(Report.Dimension, Report.Kind)

        public var description: String {
            switch self {
            case .emptyRange: return "since must be before until"
            case .unsupported(let dimension, let kind):
                return "a \(kind.rawValue) report cannot be grouped by \(dimension.rawValue)"
                    + (kind == .sessions ? " (it counts sessions' end causes in its columns)" : "")
            }
        }
    }

    /// Creates a query; the dimensions are checked against the kind and put in their order.
    /// - Throws: ``Problem``.
    public init(kind: Report.Kind, since: Timestamp, until: Timestamp, dimensions: [Report.Dimension]) throws(Problem) {
        guard since < until else { throw .emptyRange }
        for dimension in dimensions where !kind.dimensions.contains(dimension) {
            throw .unsupported(dimension, kind)
        }
        self.kind = kind
        self.since = since
        self.until = until
        self.dimensions = Report.Dimension.allCases.filter(dimensions.contains)
    }

    /// The metrics of the roll-ups this kind reads.
    var metrics: [String] {
        switch self.kind {
        case .signins: return ["signin.succeeded", "signin.failed"]
        case .failures: return ["signin.failed", "refused"]
        case .sessions: return ["session.started", "session.ended"]
        case .revocations: return ["session.ended"]
        case .alerts: return ["signin.flagged"]
        }
    }

    /// Runs the query on one snapshot of the database.
    /// - Throws: ``StoreError`` from the server.
    public func run(on connection: Connection) async throws -> Report {
        let dropped = try await Retention.dropped(on: connection)
        var since = self.since
        var until = self.until
        if let dropped {
            if since < dropped.keptFrom { since = ReportHours.floor(since) }
            if until < dropped.keptFrom { until = ReportHours.ceiling(until) }
        }
        let groups = try await connection.withTransaction(.readOnlySnapshot) { connection in
            try await ReportGroups.read(
                metrics: self.metrics,
                since: since,
                until: until,
                dimensions: self.dimensions,
                withHistory: self.kind == .sessions,
                on: connection
            )
        }
        var report = ReportTally(kind: self.kind, dimensions: self.dimensions, until: until).report(
            from: groups,
            since: self.since,
            until: self.until
        )
        if let dropped, self.since < dropped.keptFrom {
            report.dropped = dropped
            if since != self.since || until != self.until {
                report.widened = Report.CountedRange(since: since, until: until)
            }
        }
        return report
    }
}

/// Whole UTC hours and days, the roll-ups' grains, without overflow at the ends of ``Timestamp``'s range.
enum ReportHours {
    static let hour: Int64 = 3_600_000_000
    static let day: Int64 = 86_400_000_000

    /// The start of the hour (or other `grain`, in microseconds) `time` is in.
    static func floor(_ time: Timestamp, grain: Int64 = Self.hour) -> Timestamp {
        let (quotient, remainder) = time.microsecondsSinceEpoch.quotientAndRemainder(dividingBy: grain)
        let (start, overflowed) = (remainder < 0 ? quotient - 1 : quotient).multipliedReportingOverflow(by: grain)
        return overflowed ? time : Timestamp(microsecondsSinceEpoch: start)
    }

    /// The first boundary of `grain` at or after `time`.
    static func ceiling(_ time: Timestamp, grain: Int64 = Self.hour) -> Timestamp {
        let start = Self.floor(time, grain: grain)
        guard start != time else { return time }
        let (next, overflowed) = start.microsecondsSinceEpoch.addingReportingOverflow(grain)
        return overflowed ? time : Timestamp(microsecondsSinceEpoch: next)
    }
}
