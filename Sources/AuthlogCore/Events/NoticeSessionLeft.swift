/// Why a provider notice left a session of its user alone.
public enum NoticeLeftReason: String, Sendable, Codable, CaseIterable {
    /// The session started after the notice's `event_time`: the notice speaks of what existed before it.
    case startedAfterNotice = "started_after_notice"
}

/// A session a provider notice did not end (`provider.notification_received`'s `sessions_left`).
public struct NoticeSessionLeft: Codable, Sendable, Equatable {
    /// The session's lowercase id.
    public var sessionID: String
    /// When it started.
    public var startedAt: Timestamp
    /// Why it was left alone.
    public var reason: NoticeLeftReason

    /// Creates an entry.
    public init(sessionID: String, startedAt: Timestamp, reason: NoticeLeftReason) {
        self.sessionID = sessionID
        self.startedAt = startedAt
        self.reason = reason
    }
}
