/// Committed events waited longer than ``threshold`` seconds for a position in the log (`audit.sealing_stalled`):
/// the oldest event in the sealer's queue was recorded that long ago and no sealer has sealed it (a sealer that
/// keeps failing, or one waiting on the log head that a hung transaction holds). Every `serve` process watches
/// the queue once a second; the event's id is made from the oldest queued event's time, so the processes that
/// see one stall record it once. The events are safe in PostgreSQL meanwhile, but no checkpoint covers them,
/// no receipt proves them, and no sink receives them. ``AuditSealingRecovered`` ends the episode. The envelope's
/// `reason` is `sealing_stalled`. This event waits in the same queue: it gets its position when sealing resumes.
public struct AuditSealingStalled: EventPayload {
    public static let eventType = EventType.auditSealingStalled
    /// The age of the oldest queued event, in seconds, at which sealing counts as stalled (the sealing delay is
    /// under a second at every load measured).
    public static let threshold = 60
    /// When the oldest queued event was recorded (ISO 8601): the stall's start.
    public var stalledSince: String
    /// How long it had waited when the stall was recorded, in seconds.
    public var waitedSeconds: Int
    /// The events queued for sealing then (the queue's span: an upper bound).
    public var queuedEvents: Int64

    /// Creates the payload.
    public init(stalledSince: String, waitedSeconds: Int, queuedEvents: Int64) {
        self.stalledSince = stalledSince
        self.waitedSeconds = waitedSeconds
        self.queuedEvents = queuedEvents
    }
}

/// Sealing resumed after a recorded stall (``AuditSealingStalled``) (`audit.sealing_recovered`): no queued event
/// has waited past the threshold any more. The episode's end.
public struct AuditSealingRecovered: EventPayload {
    public static let eventType = EventType.auditSealingRecovered
    /// The stall's start, as its `audit.sealing_stalled` says.
    public var stalledSince: String
    /// When the process saw the queue caught up (ISO 8601).
    public var recoveredAt: String

    /// Creates the payload.
    public init(stalledSince: String, recoveredAt: String) {
        self.stalledSince = stalledSince
        self.recoveredAt = recoveredAt
    }
}
