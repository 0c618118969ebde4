public import AuthlogCore

/// One answer of `authlog report` and `GET /v1/reports/{kind}`: counts over a time range, grouped by the
/// chosen dimensions, read from the report roll-ups (``ReportQuery``).
public struct Report: Sendable, Equatable {
    /// The questions a report answers.
    public enum Kind: String, Sendable, CaseIterable, Codable {
        /// Sign-ins: succeeded and failed.
        case signins
        /// Failed sign-ins, by reason, and the requests refused without a sign-in event each (rate limits, the
        /// HTTP edge, audit routes without a valid key), by ``RefusalReason``: each counted as the requests it
        /// refused, not as the events that recorded them.
        case failures
        /// Sessions: started, ended by cause, and active at the end of the range.
        case sessions
        /// Revoked sessions, by who or what revoked them.
        case revocations
        /// Sign-ins and refreshes judged unusual (`signin.flagged`), by judgement, counted by what was done.
        case alerts

        /// The columns of counts, in order.
        public var measures: [String] {
            switch self {
            case .signins: return ["succeeded", "failed"]
            case .failures: return ["failed"]
            case .sessions:
                return [
                    "started", "ended_logout", "ended_expiry", "ended_revocation", "ended_reuse", "ended_deletion",
                    "active_at_end",
                ]
            case .revocations: return ["revocations"]
            case .alerts: return ["recorded", "reauthenticated", "reauthentication_required", "denied"]
            }
        }

        /// What `--by` means when it is not given.
        public var defaultDimensions: [Dimension] {
            switch self {
            case .signins, .sessions: return [.provider]
            case .failures, .revocations, .alerts: return [.reason]
            }
        }

        /// The dimensions this kind can be grouped by: sessions count their end causes in columns, so they
        /// have no `reason` rows.
        public var dimensions: [Dimension] {
            self == .sessions ? [.day, .provider, .client] : Dimension.allCases
        }

        /// What the `reason` dimension holds for this kind: a failure's reason, a revocation's source.
        public var reasonLabel: String {
            switch self {
            case .revocations: return "source"
            case .alerts: return "judgement"
            default: return "reason"
            }
        }

        /// A title for people.
        public var title: String {
            switch self {
            case .signins: return "Sign-ins"
            case .failures: return "Failed sign-ins and refused requests"
            case .sessions: return "Sessions"
            case .revocations: return "Revocations"
            case .alerts: return "Sign-in alerts"
            }
        }
    }

    /// What a report can be grouped by.
    public enum Dimension: String, Sendable, CaseIterable, Codable {
        /// The UTC day (`YYYY-MM-DD`).
        case day
        /// The identity provider.
        case provider
        /// The app's client id.
        case client
        /// A failure's reason, a revocation's source, an alert's judgement.
        case reason
    }

    /// One group's counts.
    public struct Row: Sendable, Equatable {
        /// The group's value of each of ``Report/dimensions``, in the same order; `(none)` when unset.
        public var keys: [String]
        /// One count per measure of ``Report/kind``, in the same order.
        public var values: [Int64]

        /// Creates a row.
        public init(keys: [String], values: [Int64]) {
            self.keys = keys
            self.values = values
        }
    }

    /// The question.
    public var kind: Kind
    /// The start of the range, inclusive.
    public var since: Timestamp
    /// The end of the range, exclusive.
    public var until: Timestamp
    /// The grouping, in the order day, provider, client, reason.
    public var dimensions: [Dimension]
    /// The groups with any count, sorted by their keys. Days without any counted item are left out.
    public var rows: [Row]
    /// The counts of the whole range (`active_at_end` at ``until``, not a sum over days).
    public var total: [Int64]
    /// Set when the range reaches into months retention dropped: the counts there come from the roll-ups,
    /// which retention keeps.
    public var dropped: Retention.Dropped?
    /// Set when a range edge inside the dropped months was widened to the whole hour, the roll-ups'
    /// finest grain there: the range actually counted.
    public var widened: CountedRange?

    /// A range of time actually counted.
    public struct CountedRange: Sendable, Equatable {
        /// Inclusive start.
        public var since: Timestamp
        /// Exclusive end.
        public var until: Timestamp
    }

    /// The column names of ``rows``: the dimensions (with `reason` named as ``Kind/reasonLabel``), then the
    /// measures.
    public var header: [String] {
        self.dimensions.map { $0 == .reason ? self.kind.reasonLabel : $0.rawValue } + self.kind.measures
    }

    /// Creates a report.
    public init(kind: Kind, since: Timestamp, until: Timestamp, dimensions: [Dimension], rows: [Row], total: [Int64]) {
        self.kind = kind
        self.since = since
        self.until = until
        self.dimensions = dimensions
        self.rows = rows
        self.total = total
    }

    /// The value of `measure` in `row`, 0 when the kind has no such measure.
    public func value(_ measure: String, in row: Row) -> Int64 {
        guard let index = self.kind.measures.firstIndex(of: measure), index < row.values.count else { return 0 }
        return row.values[index]
    }

    /// The key of `dimension` in `row`; nil when the report is not grouped by it.
    public func key(_ dimension: Dimension, in row: Row) -> String? {
        guard let index = self.dimensions.firstIndex(of: dimension), index < row.keys.count else { return nil }
        return row.keys[index]
    }
}
