/// One page of ``AuthlogClient/activity(after:limit:)``.
public struct ActivityPage: Sendable, Hashable, Decodable {
    /// The events, newest first.
    public let entries: [ActivityEntry]
    /// The cursor of the next (older) page, or `nil` after the last.
    public let next: String?

    enum CodingKeys: String, CodingKey {
        case entries = "activity"
        case next
    }
}
