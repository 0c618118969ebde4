import AuthlogCore
import Foundation

/// What a provider notice reaches, by its time: a notice speaks of what existed when the event happened at
/// the provider, so the sessions of its provider that started after its `event_time` (the user signed in
/// again since) are left alone. A notice without a time reaches every session.
struct NoticeReach: Sendable {
    /// When the provider says the event happened, if it said.
    let eventTime: Timestamp?
    /// The active sessions the notice ends.
    let ended: [SessionRecord]
    /// The active sessions it leaves alone (they started after `eventTime`).
    let left: [SessionRecord]

    /// Splits `sessions` (the active sessions of the notice's provider) by `eventTime`.
    init(sessions: [SessionRecord], eventTime: Timestamp?) {
        self.eventTime = eventTime
        self.ended = sessions.filter { Self.existed($0, at: eventTime) }
        self.left = sessions.filter { !Self.existed($0, at: eventTime) }
    }

    /// A notice that ends nothing (one that only records, such as an email change).
    static func none(eventTime: Timestamp?) -> NoticeReach {
        NoticeReach(sessions: [], eventTime: eventTime)
    }

    /// Whether the notice reaches `session`: it had started by the notice's time (or the notice has none).
    func reaches(_ session: SessionRecord) -> Bool { Self.existed(session, at: self.eventTime) }

    /// Writes the reach into the notice's recorded payload: the sessions it ends and those it leaves, and why.
    func annotate(_ payload: inout ProviderNotificationReceived) {
        payload.sessionsEnded = self.ended.map(\.sessionID.lowercased)
        payload.sessionsLeft = self.left.map {
            NoticeSessionLeft(sessionID: $0.sessionID.lowercased, startedAt: $0.startedAt, reason: .startedAfterNotice)
        }
    }

    /// Whether `session` had started by `eventTime`, at the notice's resolution: Apple's `event_time` is in
    /// milliseconds, so a session started within that millisecond counts as existing.
    private static func existed(_ session: SessionRecord, at eventTime: Timestamp?) -> Bool {
        guard let eventTime else { return true }
        let endOfMillisecond = Timestamp(microsecondsSinceEpoch: eventTime.microsecondsSinceEpoch + 999)
        return session.startedAt <= endOfMillisecond
    }
}
