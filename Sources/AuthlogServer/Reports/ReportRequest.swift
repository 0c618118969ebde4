public import AuthlogCore
public import AuthlogStore
import Foundation

/// The one reading of a report's parameters, for `authlog report` and `GET /v1/reports/{kind}` alike:
/// `since` and `until` (a date, midnight UTC, or an ISO 8601 time; by default the 30 days before now) and
/// `by` (a comma-separated list of `day`, `provider`, `client`, `reason`; by default the kind's own).
public enum ReportRequest {
    /// A parameter that cannot be used, with a sentence saying why.
    public struct Problem: Error, Equatable, CustomStringConvertible {
        /// The sentence.
        public var description: String
    }

    /// The longest text a parameter may have.
    static let maximumLength = 200

    /// Parses the parameters of a report of `kind`.
    /// - Throws: ``Problem``.
    public static func query(
        kind: String,
        since: String?,
        until: String?,
        by: String?,
        now: Timestamp = .now()
    ) throws(Problem) -> ReportQuery {
        guard let kind = Report.Kind(rawValue: kind) else {
            throw Problem(
                description: "unknown report \"\(Self.shown(kind))\"; use one of "
                    + Report.Kind.allCases.map(\.rawValue).joined(separator: ", ")
            )
        }
        let end = try self.time(until, name: "until") ?? now
        let start = try self.time(since, name: "since") ?? end.adding(seconds: -30 * 86_400)
        var dimensions = kind.defaultDimensions
        if let by {
            guard by.utf8.count <= Self.maximumLength else { throw Problem(description: "by is too long") }
            dimensions = []
            for name in by.split(separator: ",", omittingEmptySubsequences: false) {
                let trimmed = name.trimmingCharacters(in: .whitespaces)
                guard let dimension = Report.Dimension(rawValue: trimmed) else {
                    throw Problem(
                        description:
                            "by: unknown dimension \"\(Self.shown(trimmed))\"; use day, provider, client or reason"
                    )
                }
                guard !dimensions.contains(dimension) else {
                    throw Problem(description: "by: \(dimension.rawValue) is given twice")
                }
                dimensions.append(dimension)
            }
        }
        do {
            return try ReportQuery(kind: kind, since: start, until: end, dimensions: dimensions)
        } catch {
            throw Problem(description: error.description)
        }
    }

    /// What a report read, for its `audit.accessed` record.
    public static func summary(of query: ReportQuery) -> String {
        "report \(query.kind.rawValue) since=\(query.since) until=\(query.until) by="
            + query.dimensions.map(\.rawValue).joined(separator: ",")
    }

    private static func time(_ text: String?, name: String) throws(Problem) -> Timestamp? {
        guard let text else { return nil }
        guard text.utf8.count <= Self.maximumLength, let time = Timestamp(iso8601: text) else {
            throw Problem(description: "\(name) must be a date (2026-11-01) or an ISO 8601 time")
        }
        return time
    }

    /// Hostile text, shortened and stripped of control characters, fit to repeat in an answer.
    private static func shown(_ text: some StringProtocol) -> String {
        String(text.unicodeScalars.filter { $0.properties.generalCategory != .control }.prefix(40).map(Character.init))
    }
}
