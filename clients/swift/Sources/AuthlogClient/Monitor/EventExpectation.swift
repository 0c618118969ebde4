import AuthlogTransparency
import Foundation

/// What an event named by an answer must be to count as this user's own action: whose it is, which sessions it
/// may name, and around when it happened.
struct EventExpectation: Sendable, Equatable {
    /// Which sessions the event may name.
    enum Sessions: Sendable, Equatable {
        /// One of these (the session the answer was for, and the one a call ended).
        case only(Set<String>)
        /// Any of the user's sessions: a call that ends several (logout everywhere, deletion, revoke others), or
        /// the activity list, which shows every device's events.
        case anyOfUser
    }

    /// The user the answer was for.
    var userID: String
    /// The sessions the event may name.
    var sessions: Sessions
    /// When the request was sent (for the activity: the time the list gave).
    var requestedAt: Date
    /// The position the activity listed, when it came from the activity.
    var listedPosition: Int64?
    /// The event types the call appends (docs/events.md); nil when the call may append any (a call of the app's
    /// own through ``AuthlogClient/send(_:)``, the activity list).
    var types: Set<String>? = nil

    /// The types a refresh appends: the rotation, or the grace window's replay of it (docs/signin.md).
    static let refreshTypes: Set<String> = ["token.refreshed", "token.refresh_replayed"]

    /// The types whose every event names its session (docs/events.md: the server refuses one without): an
    /// event of these types proven without a session is not what the server appended, whatever the sessions
    /// expected (a log that dropped the session would otherwise pass the session check).
    static let sessionTypes: Set<String> = [
        "signin.succeeded", "token.issued", "token.refreshed", "token.reuse_detected", "token.refresh_replayed",
        "token.revoked", "token.access_refused", "session.logged_out", "session.revoked", "session.expired",
        "session.reauthenticated",
    ]

    /// The expectation for an answer to a request by the session `identity` at `requestedAt`: its events may
    /// name that session, and the `sessions` the call acted on (`.only` adds to the session).
    static func answer(
        to identity: SessionIdentity,
        at requestedAt: Date,
        sessions: Sessions? = nil,
        types: Set<String>? = nil
    ) -> Self {
        let allowed: Sessions
        switch sessions {
        case nil: allowed = .only([identity.sessionID])
        case .only(let others): allowed = .only(others.union([identity.sessionID]))
        case .anyOfUser: allowed = .anyOfUser
        }
        return Self(userID: identity.userID, sessions: allowed, requestedAt: requestedAt, types: types)
    }

    /// Why `event`, proven at `position`, is not what was expected; nil when it is. `window` is the most the
    /// event's time may differ from ``requestedAt``, either way.
    func refusal(of event: CanonicalEvent, position: Int64, window: TimeInterval) -> ReceiptRefusal? {
        guard event.userID?.lowercased() == self.userID.lowercased() else {
            return .anotherUser(expected: self.userID, found: event.userID)
        }
        if event.sessionID == nil, Self.sessionTypes.contains(event.type) {
            return .missingSession(type: event.type)
        }
        if let session = event.sessionID, case .only(let allowed) = self.sessions,
            !allowed.contains(where: { $0.lowercased() == session.lowercased() })
        {
            return .anotherSession(expected: allowed.sorted(), found: session)
        }
        if let types = self.types, !types.contains(event.type) {
            return .unexpectedType(expected: types.sorted(), found: event.type)
        }
        let occurredAt = Self.date(microseconds: event.occurredAtMicroseconds)
        guard abs(occurredAt.timeIntervalSince(self.requestedAt)) <= window else {
            return .outsideTimeWindow(occurredAt: occurredAt, requestedAt: self.requestedAt)
        }
        if let listed = self.listedPosition, listed != position {
            return .positionMismatch(listed: listed, proven: position)
        }
        return nil
    }

    /// The instant `microseconds` after 1970.
    static func date(microseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(microseconds) / 1_000_000)
    }
}
