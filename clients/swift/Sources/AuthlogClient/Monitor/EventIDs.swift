import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The event ids an answer names: the `Authlog-Event-Ids` header (comma-separated) and, for sign-in and refresh,
/// the body's `event_ids`. Only UUIDs are taken, lowercased, at most ``maximumCount`` per answer.
enum EventIDs {
    /// The header's name.
    static let header = "Authlog-Event-Ids"
    /// The most ids taken from one answer (authlog names at most 100).
    static let maximumCount = 100

    /// The ids `response` names in its header, then those of `body`, each once.
    static func named(by response: HTTPURLResponse, body: [String] = []) -> [String] {
        let text = response.value(forHTTPHeaderField: Self.header) ?? ""
        guard !text.isEmpty || !body.isEmpty else { return [] }
        // Bounded before it is split: 100 ids of 36 characters and their commas.
        let fromHeader = text.utf8.count <= Self.maximumCount * 38 ? text.split(separator: ",").map(String.init) : []
        var seen: Set<String> = []
        var ids: [String] = []
        for candidate in fromHeader + body where ids.count < Self.maximumCount {
            guard let id = Self.normalized(candidate), seen.insert(id).inserted else { continue }
            ids.append(id)
        }
        return ids
    }

    /// `text` as a lowercase UUID, or nil when it is not one.
    static func normalized(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.utf8.count == 36, UUID(uuidString: trimmed) != nil else { return nil }
        return trimmed.lowercased()
    }
}
