public import AuthlogAccounts
import AuthlogCore
public import AuthlogStore
import Foundation

/// The parameters of `GET /v1/events`, checked: `after` (a position, default 0), `limit` (1–1000, default
/// 100), the filters `type`, `user_id` and `provider`, and `format` (`export`, the default, or `ocsf`). Anything
/// else, a repeated parameter or a bad value is refused, so a misspelt filter never silently exports everything.
public struct ExportQuery: Sendable, Equatable {
    /// The cursor: events after this position.
    public var after: Int64 = 0
    /// At most this many events.
    public var limit = 100
    /// Which events.
    public var filter = EventFilter()
    /// What each element of `events` is: the export format, or an OCSF event (``OCSFExport``).
    public var format = SinkSettings.Format.export

    /// The parameter names it accepts.
    static let names: Set<String> = ["after", "limit", "type", "user_id", "provider", "format"]

    /// Whether this is a stream's query (`GET /v1/events/stream`): it has no `limit`, and ends at the head.
    public private(set) var isStream = false

    /// Parses `parameters` (name, value), in request order; a stream's (`streaming`) takes no `limit`.
    /// - Throws: ``ServiceError`` 400 `invalid_request` naming the parameter.
    public init(parameters: [(name: String, value: String)], streaming: Bool = false) throws(ServiceError) {
        self.isStream = streaming
        var seen = Set<String>()
        for (name, value) in parameters {
            guard Self.names.contains(name), !(streaming && name == "limit") else {
                let shown = EnvelopeText.normalized(name, limit: 32) ?? "\"\(name)\""
                throw ServiceError.badRequest(
                    "Unknown query parameter \(shown); use after, \(streaming ? "" : "limit, ")type, user_id, provider or format."
                )
            }
            guard seen.insert(name).inserted else {
                throw ServiceError.badRequest("The query parameter \(name) is given twice.")
            }
            switch name {
            case "after":
                self.after = try Self.number(value, name, in: 0...999_999_999_999_999_999)
            case "limit":
                self.limit = Int(try Self.number(value, name, in: 1...Int64(EventReader.maximumExportPage)))
            case "type":
                guard let type = EventType(rawValue: value) else {
                    throw ServiceError.badRequest("The query parameter type is not an event type of the catalogue.")
                }
                self.filter.type = type
            case "user_id":
                guard value.utf8.count == 36, let id = UUID(uuidString: value) else {
                    throw ServiceError.badRequest("The query parameter user_id must be a UUID.")
                }
                self.filter.userID = id
            case "format":
                guard let format = SinkSettings.Format(rawValue: value) else {
                    throw ServiceError.badRequest("The query parameter format must be export or ocsf.")
                }
                self.format = format
            default:
                guard (1...64).contains(value.utf8.count), value == EnvelopeText.normalized(value, limit: 64) else {
                    throw ServiceError.badRequest("The query parameter provider must be 1 to 64 printable characters.")
                }
                self.filter.provider = value
            }
        }
    }

    /// A decimal in `range`: at most 18 digits, so it always fits an `Int64` before the range is checked.
    private static func number(
        _ text: String,
        _ name: String,
        in range: ClosedRange<Int64>
    ) throws(ServiceError)
        -> Int64
    {
        guard (1...18).contains(text.utf8.count), text.utf8.allSatisfy({ (48...57).contains($0) }),
            let value = Int64(text), range.contains(value)
        else {
            throw ServiceError.badRequest(
                "The query parameter \(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)."
            )
        }
        return value
    }

    /// What `audit.accessed` says was read: `export after=… next=… limit=…` (a stream's: `export_stream
    /// after=… through=…`, the head it ends at) and the filters.
    func summary(next: Int64) -> String {
        let filters = self.filter.summary
        let range =
            self.isStream
            ? "export_stream after=\(self.after) through=\(next)"
            : "export after=\(self.after) next=\(next) limit=\(self.limit)"
        return range + (filters.isEmpty ? "" : " " + filters)
            + (self.format == .export ? "" : " format=\(self.format.rawValue)")
    }
}
