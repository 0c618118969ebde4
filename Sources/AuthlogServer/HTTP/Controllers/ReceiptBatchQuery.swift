import AuthlogAccounts
import AuthlogTransparency
import Foundation

/// The query of `GET /v1/log/receipts`: `ids`, 1…64 event ids (UUIDs) separated by commas, none repeated,
/// `from`, an optional tree size from 1 to 2^62, and `event_form`, optionally `base64` (the default) or `text`.
/// Anything else is 400 `invalid_request` naming the problem.
struct ReceiptBatchQuery: Sendable, Equatable {
    /// How each receipt carries its event's canonical bytes.
    enum EventForm: String, Sendable, Equatable {
        /// `event`: standard base64.
        case base64
        /// `event_text`: a JSON string of one character per byte (U+0000…U+00FF), so that gzip sees the
        /// repeats between one user's events that base64 hides.
        case text
    }

    /// The largest `from`.
    static let maximumFrom: Int64 = 1 << 62

    /// The event ids, in the order given.
    var eventIDs: [UUID]
    /// The tree size the caller keeps, if it said.
    var from: Int64?
    /// The form of the events' bytes.
    var eventForm: EventForm

    /// Reads `ids`, `from` and `event_form` (each given at most once) from `parameters`, the query's (name,
    /// value) pairs.
    /// - Throws: ``ServiceError`` 400 `invalid_request`.
    init(parameters: [(name: String, value: String)]) throws(ServiceError) {
        let ids = parameters.filter { $0.name == "ids" }.map(\.value)
        let from = parameters.filter { $0.name == "from" }.map(\.value)
        guard ids.count == 1, let list = ids.first else {
            throw .badRequest("Give the query parameter ids once: 1 to 64 event ids separated by commas.")
        }
        guard from.count <= 1 else { throw .badRequest("Give the query parameter from at most once.") }
        let forms = parameters.filter { $0.name == "event_form" }.map(\.value)
        guard forms.count <= 1, let form = EventForm(rawValue: forms.first ?? "base64") else {
            throw .badRequest("Give the query parameter event_form at most once: base64 or text.")
        }
        self.eventForm = form
        self.eventIDs = try Self.eventIDs(list)
        self.from = try from.first.map { text throws(ServiceError) in try Self.treeSize(text) }
    }

    private static func eventIDs(_ list: String) throws(ServiceError) -> [UUID] {
        let limit = MultiLeafProof.maximumLeaves
        // 36 characters and a comma each: a longer list cannot be valid, so it is refused before it is split.
        guard list.utf8.count <= limit * 37 else {
            throw .badRequest("The query parameter ids holds more than \(limit) event ids.")
        }
        let parts = list.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count <= limit else {
            throw .badRequest("The query parameter ids holds more than \(limit) event ids.")
        }
        var ids: [UUID] = []
        var seen: Set<UUID> = []
        for (offset, part) in parts.enumerated() {
            guard part.utf8.count == 36, let id = UUID(uuidString: String(part)) else {
                throw .badRequest("The query parameter ids: entry \(offset + 1) is not an event id (a UUID).")
            }
            guard seen.insert(id).inserted else {
                throw .badRequest("The query parameter ids names the event \(id.uuidString.lowercased()) twice.")
            }
            ids.append(id)
        }
        return ids
    }

    private static func treeSize(_ text: String) throws(ServiceError) -> Int64 {
        guard (1...19).contains(text.utf8.count), text.utf8.allSatisfy({ (48...57).contains($0) }),
            let value = Int64(text), (1...Self.maximumFrom).contains(value)
        else {
            throw .badRequest("The query parameter from must be a tree size from 1 to 2^62, in decimal.")
        }
        return value
    }
}
