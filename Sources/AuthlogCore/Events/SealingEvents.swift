/// Sealing stopped (`audit.sealing_stalled`): the event at the head of the sealer's queue (committed, waiting for
/// its position in the log) stayed there ``threshold`` seconds while a process watched; no sealer took it (one
/// that keeps failing, or every sealer waiting on a log head a hung transaction holds). Every `serve` process
/// watches the queue once a second; the episode lives in the stream `audit-sealer`, appended with an expected
/// version, so the processes that see one stall record it once and a process started during it finds it open.
/// The events are in PostgreSQL meanwhile, but no checkpoint covers them, no receipt proves them, and no sink
/// receives them. ``AuditSealingRecovered`` ends the episode. The envelope's `reason` is `sealing_stalled`.
/// This event waits in the same queue: it gets its position when sealing resumes.
public struct AuditSealingStalled: EventPayload {
    public static let eventType = EventType.auditSealingStalled
    /// The seconds the queue's head must stay unsealed (the sealing delay is under a second at every load
    /// measured).
    public static let threshold = 60
    /// When the watching process first saw the stuck event at the head of the queue (ISO 8601).
    public var stalledSince: String
    /// How long it had seen it there when the stall was recorded, in seconds.
    public var waitedSeconds: Int
    /// The stuck queue entry's number (`authlog.unsealed_events.queued`): the episode ends once it leaves the
    /// queue.
    public var headQueued: Int64
    /// The events queued for sealing then (the queue's span: an upper bound).
    public var queuedEvents: Int64

    /// Creates the payload.
    public init(stalledSince: String, waitedSeconds: Int, headQueued: Int64, queuedEvents: Int64) {
        self.stalledSince = stalledSince
        self.waitedSeconds = waitedSeconds
        self.headQueued = headQueued
        self.queuedEvents = queuedEvents
    }
}

/// Sealing resumed after a recorded stall (``AuditSealingStalled``) (`audit.sealing_recovered`): the stuck entry
/// left the queue (sealed, or refused by the sealer). The episode's end.
public struct AuditSealingRecovered: EventPayload {
    public static let eventType = EventType.auditSealingRecovered
    /// The stall's start, as its `audit.sealing_stalled` says.
    public var stalledSince: String
    /// When a process saw the stuck entry gone (ISO 8601).
    public var recoveredAt: String

    /// Creates the payload.
    public init(stalledSince: String, recoveredAt: String) {
        self.stalledSince = stalledSince
        self.recoveredAt = recoveredAt
    }
}
