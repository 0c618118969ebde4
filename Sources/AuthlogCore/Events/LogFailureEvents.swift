/// The log could not be written for a while (`audit.write_outage`), recorded once per outage by the process
/// that saw it, as soon as a write succeeds again: from its first failed write (or request refused with 503
/// `database_unavailable`) to the first write that succeeded after it. The requests refused meanwhile were
/// answered 503 and are recorded nowhere else: this event is their record. The envelope's `reason` is
/// `database_unavailable`.
public struct AuditWriteOutage: EventPayload {
    public static let eventType = EventType.auditWriteOutage
    /// When the first write failed, or the first request was refused (ISO 8601).
    public var startedAt: String
    /// When a write succeeded again (ISO 8601).
    public var endedAt: String
    /// The requests answered 503 `database_unavailable` meanwhile: nothing they asked for was done.
    public var requestsRefused: Int
    /// Those requests by route, as `/metrics` names routes (`/v1/signin/{provider}`).
    public var refusedRoutes: [String: Int]
    /// The first failure's kind as the server's log names it: `server_error 53100` (SQLSTATE 53100, disk full),
    /// `connection_failed`; `unknown` when only refused requests were seen and none said.
    public var error: String

    /// Creates the payload.
    public init(startedAt: String, endedAt: String, refusedRoutes: [String: Int], error: String) {
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.requestsRefused = refusedRoutes.values.reduce(0, +)
        self.refusedRoutes = refusedRoutes
        self.error = error
    }

    /// Requires the refused requests to be the sum of those by route.
    public func checkContents() throws(EventValidationError) {
        guard self.requestsRefused >= 0, self.requestsRefused == self.refusedRoutes.values.reduce(0, +) else {
            throw EventValidationError(field: "data.requests_refused", problem: "must be the sum of refused_routes")
        }
    }
}

/// A push-delivery sink failed past the alert threshold (`audit.sink_failing`): its deliveries failed
/// ``threshold`` times in a row (unreachable, timed out, or answered other than 2xx). Recorded once per episode,
/// when the threshold is reached, by the process holding the sink's lease; ``AuditSinkRecovered`` ends the
/// episode. The events wait in the log meanwhile. The envelope's `reason` is `delivery_failed`.
public struct AuditSinkFailing: EventPayload {
    public static let eventType = EventType.auditSinkFailing
    /// The failures in a row that make an episode: the `AuthlogSinkFailing` alert's threshold.
    public static let threshold = 5
    /// The sink's name (`sinks[].name`).
    public var sink: String
    /// When the first failure of the run happened (ISO 8601).
    public var failingSince: String
    /// The failures in a row so far.
    public var failures: Int
    /// Why the last one failed, in one line (`answered HTTP 503`, `unreachable or timed out`).
    public var lastError: String
    /// The last position the sink acknowledged.
    public var deliveredThrough: Int64
    /// Sealed events it has not acknowledged.
    public var lagEvents: Int64

    /// Creates the payload.
    public init(
        sink: String,
        failingSince: String,
        failures: Int,
        lastError: String,
        deliveredThrough: Int64,
        lagEvents: Int64
    ) {
        self.sink = sink
        self.failingSince = failingSince
        self.failures = failures
        self.lastError = lastError
        self.deliveredThrough = deliveredThrough
        self.lagEvents = lagEvents
    }
}

/// A sink recorded as failing (``AuditSinkFailing``) acknowledged a batch again (`audit.sink_recovered`): the
/// episode's end. The events it missed are delivered from its cursor, in log order.
public struct AuditSinkRecovered: EventPayload {
    public static let eventType = EventType.auditSinkRecovered
    /// The sink's name.
    public var sink: String
    /// When the episode's first failure happened (ISO 8601), as its `audit.sink_failing` says.
    public var failingSince: String
    /// When the sink acknowledged a batch again (ISO 8601).
    public var recoveredAt: String
    /// The failures in a row the episode had.
    public var failures: Int
    /// The last position of the batch it acknowledged.
    public var deliveredThrough: Int64

    /// Creates the payload.
    public init(sink: String, failingSince: String, recoveredAt: String, failures: Int, deliveredThrough: Int64) {
        self.sink = sink
        self.failingSince = failingSince
        self.recoveredAt = recoveredAt
        self.failures = failures
        self.deliveredThrough = deliveredThrough
    }
}

/// Aggregated refusal events (`ratelimit.exceeded`, `request.refused`, `audit.accessed`) that this process
/// dropped while the database stayed unwritable past the 10,000 it keeps waiting (`audit.refusals_dropped`):
/// one event per episode, recorded once writing resumes, with the requests the dropped events accounted for.
/// The envelope's `reason` is `too_many_waiting`.
public struct AuditRefusalsDropped: EventPayload {
    public static let eventType = EventType.auditRefusalsDropped
    /// The refusal events dropped.
    public var events: Int
    /// The refused requests they accounted for (the sum of their counts).
    public var requests: Int
    /// When the first of them was dropped (ISO 8601).
    public var firstDroppedAt: String
    /// When the last of them was dropped (ISO 8601).
    public var lastDroppedAt: String

    /// Creates the payload.
    public init(events: Int, requests: Int, firstDroppedAt: String, lastDroppedAt: String) {
        self.events = events
        self.requests = requests
        self.firstDroppedAt = firstDroppedAt
        self.lastDroppedAt = lastDroppedAt
    }

    /// Requires at least one event, accounting for at least one request each.
    public func checkContents() throws(EventValidationError) {
        guard self.events >= 1 else { throw EventValidationError(field: "data.events", problem: "must be at least 1") }
        guard self.requests >= self.events else {
            throw EventValidationError(field: "data.requests", problem: "must be at least events")
        }
    }
}

/// Checkpoints could not be signed (`audit.checkpoint_failing`): signing failed ``threshold`` times in a row for
/// a reason of its own (the checkpoint directory or the signer's state cannot be written, the key cannot sign),
/// not a contradiction (that is ``AuditCheckpointRefused``) nor an error PostgreSQL reported or a database that
/// cannot be reached (an outage is ``AuditWriteOutage``). Recorded once per episode by the process whose signing fails; the log goes on
/// growing unsigned meanwhile. ``AuditCheckpointRecovered`` ends it. The envelope's `reason` is `signing_failed`.
public struct AuditCheckpointFailing: EventPayload {
    public static let eventType = EventType.auditCheckpointFailing
    /// The failures in a row that make an episode (one attempt a second while a checkpoint is due).
    public static let threshold = 3
    /// When the first failure of the run happened (ISO 8601).
    public var failingSince: String
    /// The failures in a row so far.
    public var failures: Int
    /// Why the last one failed, in one line: authlog's own sentence (it may name the file), never key material.
    public var lastError: String
    /// The size of the last checkpoint signed, if any.
    public var lastSignedSize: Int64?

    /// Creates the payload.
    public init(failingSince: String, failures: Int, lastError: String, lastSignedSize: Int64?) {
        self.failingSince = failingSince
        self.failures = failures
        self.lastError = lastError
        self.lastSignedSize = lastSignedSize
    }
}

/// The process recorded as failing to sign (``AuditCheckpointFailing``) signed a checkpoint again
/// (`audit.checkpoint_recovered`): the episode's end.
public struct AuditCheckpointRecovered: EventPayload {
    public static let eventType = EventType.auditCheckpointRecovered
    /// When the episode's first failure happened (ISO 8601), as its `audit.checkpoint_failing` says.
    public var failingSince: String
    /// When a checkpoint was signed again (ISO 8601).
    public var recoveredAt: String
    /// The failures in a row the episode had.
    public var failures: Int
    /// The size of the checkpoint signed.
    public var signedSize: Int64

    /// Creates the payload.
    public init(failingSince: String, recoveredAt: String, failures: Int, signedSize: Int64) {
        self.failingSince = failingSince
        self.recoveredAt = recoveredAt
        self.failures = failures
        self.signedSize = signedSize
    }
}

/// Submissions of checkpoints to a witness failed ``threshold`` times in a row (`audit.witness_failing`): it could
/// not be reached, timed out, or answered other than a cosignature or a contradiction (a 403 when it no longer
/// trusts the log's key, a 404, a 5xx, a cosignature that does not verify). A contradiction is an alarm instead
/// (`audit.witness_alarm`). Recorded once per episode by the process whose submissions fail;
/// ``AuditWitnessRecovered`` ends it. The envelope's `reason` is `submission_failed`.
public struct AuditWitnessFailing: EventPayload {
    public static let eventType = EventType.auditWitnessFailing
    /// The failures in a row that make an episode (the submissions back off: about half a minute at 1 s).
    public static let threshold = 5
    /// The witness's name (`log.witnesses[].name`).
    public var witness: String
    /// When the first failure of the run happened (ISO 8601).
    public var failingSince: String
    /// The failures in a row so far.
    public var failures: Int
    /// Why the last one failed, in one line (`answered HTTP 403`, `unreachable or timed out`).
    public var lastError: String
    /// The size the witness last cosigned for this log.
    public var cosignedSize: Int64

    /// Creates the payload.
    public init(witness: String, failingSince: String, failures: Int, lastError: String, cosignedSize: Int64) {
        self.witness = witness
        self.failingSince = failingSince
        self.failures = failures
        self.lastError = lastError
        self.cosignedSize = cosignedSize
    }
}

/// A witness recorded as failing (``AuditWitnessFailing``) cosigned a checkpoint again
/// (`audit.witness_recovered`): the episode's end.
public struct AuditWitnessRecovered: EventPayload {
    public static let eventType = EventType.auditWitnessRecovered
    /// The witness's name.
    public var witness: String
    /// When the episode's first failure happened (ISO 8601), as its `audit.witness_failing` says.
    public var failingSince: String
    /// When the witness cosigned again (ISO 8601).
    public var recoveredAt: String
    /// The failures in a row the episode had.
    public var failures: Int
    /// The size it cosigned.
    public var cosignedSize: Int64

    /// Creates the payload.
    public init(witness: String, failingSince: String, recoveredAt: String, failures: Int, cosignedSize: Int64) {
        self.witness = witness
        self.failingSince = failingSince
        self.recoveredAt = recoveredAt
        self.failures = failures
        self.cosignedSize = cosignedSize
    }
}
