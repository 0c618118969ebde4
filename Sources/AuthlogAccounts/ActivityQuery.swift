import AuthlogCore

/// The query of `GET /v1/me/activity`: `after` (an ``ActivityCursor``) and `limit` (1…200, default 50). Any
/// other parameter, a repeated one, or a value out of shape is refused with 400 `invalid_request`.
public struct ActivityQuery: Sendable, Equatable {
    /// The page size when `limit` is not given.
    public static let defaultLimit = 50
    /// The largest page a request may ask for.
    public static let maximumLimit = 200

    /// Where the page starts (exclusive); `nil` for the newest events.
    public var after: ActivityCursor?
    /// How many events the page holds at most.
    public var limit = Self.defaultLimit

    /// Reads the query parameters, in the order they came.
    /// - Throws: ``ServiceError`` 400 `invalid_request` naming what is wrong.
    public init(parameters: [(name: String, value: String)]) throws(ServiceError) {
        var seen = Set<String>()
        for (name, value) in parameters {
            guard name == "after" || name == "limit" else {
                let shown = EnvelopeText.normalized(name, limit: 32) ?? "\"\(name)\""
                throw ServiceError.badRequest("Unknown query parameter \(shown); use after or limit.")
            }
            guard seen.insert(name).inserted else {
                throw ServiceError.badRequest("The query parameter \(name) is given twice.")
            }
            if name == "after" {
                guard let cursor = ActivityCursor(text: value) else {
                    throw ServiceError.badRequest("The query parameter after is not a cursor of this service.")
                }
                self.after = cursor
            } else {
                guard (1...3).contains(value.utf8.count), value.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                    let limit = Int(value), (1...Self.maximumLimit).contains(limit)
                else {
                    throw ServiceError.badRequest(
                        "The query parameter limit must be a number from 1 to \(Self.maximumLimit)."
                    )
                }
                self.limit = limit
            }
        }
    }

    /// What the read is recorded as (`audit.accessed`'s `query`).
    var summary: String {
        "me activity after=\(self.after?.text ?? "none") limit=\(self.limit)"
    }
}
