public import Foundation

/// An active session as its user sees it: the projection's record plus where it began.
public struct SessionDetail: Sendable, Equatable {
    /// The session.
    public var session: SessionRecord
    /// The client address of the sign-in that started it, when recorded (and not dropped by retention).
    public var ip: IPAddress?
    /// The user agent of that sign-in, when recorded.
    public var userAgent: String?
    /// When its refresh token was last rotated; `nil` when it never was.
    public var lastRefreshedAt: Timestamp?

    /// Creates a detail.
    public init(session: SessionRecord, ip: IPAddress?, userAgent: String?, lastRefreshedAt: Timestamp?) {
        self.session = session
        self.ip = ip
        self.userAgent = userAgent
        self.lastRefreshedAt = lastRefreshedAt
    }
}

/// A place in a user's activity, newest first: events are ordered by `occurred_at`, then by event id.
public struct ActivityPosition: Sendable, Equatable, Comparable {
    /// The event's `occurred_at`.
    public var occurredAt: Timestamp
    /// The event's id, breaking ties between events of one instant.
    public var eventID: UUID

    /// Creates a position.
    public init(occurredAt: Timestamp, eventID: UUID) {
        self.occurredAt = occurredAt
        self.eventID = eventID
    }

    /// Ascending by time, then by the id's lowercase text (PostgreSQL's order of `uuid` values).
    public static func < (lhs: ActivityPosition, rhs: ActivityPosition) -> Bool {
        if lhs.occurredAt != rhs.occurredAt { return lhs.occurredAt < rhs.occurredAt }
        return lhs.eventID.lowercased < rhs.eventID.lowercased
    }
}

/// One event of a user's activity, with the envelope columns the user is shown.
public struct ActivityRecord: Sendable, Equatable {
    /// The event's id.
    public var eventID: UUID
    /// Its type.
    public var type: EventType
    /// When it happened.
    public var occurredAt: Timestamp
    /// Whether the action succeeded.
    public var outcome: Outcome
    /// The reason of a failure or revocation.
    public var reason: String?
    /// The identity provider involved.
    public var provider: String?
    /// The session it concerned.
    public var sessionID: UUID?
    /// The client address.
    public var ip: IPAddress?
    /// The client's user agent.
    public var userAgent: String?
    /// Its position in the log (its leaf index + 1); nil until the sealer gives it one.
    public var logPosition: Int64?
    /// For a `signin.flagged`, its `data`: what was unusual about which sign-in, and what was done.
    public var alert: JSONValue?

    /// Where it stands in the activity's order.
    public var position: ActivityPosition { ActivityPosition(occurredAt: self.occurredAt, eventID: self.eventID) }

    /// Creates a record.
    public init(
        eventID: UUID,
        type: EventType,
        occurredAt: Timestamp,
        outcome: Outcome,
        reason: String?,
        provider: String?,
        sessionID: UUID?,
        ip: IPAddress?,
        userAgent: String?,
        logPosition: Int64? = nil,
        alert: JSONValue? = nil
    ) {
        self.eventID = eventID
        self.type = type
        self.occurredAt = occurredAt
        self.outcome = outcome
        self.reason = reason
        self.provider = provider
        self.sessionID = sessionID
        self.ip = ip
        self.userAgent = userAgent
        self.logPosition = logPosition
        self.alert = alert
    }
}
