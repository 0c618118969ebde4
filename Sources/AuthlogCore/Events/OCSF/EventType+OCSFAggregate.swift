/// The `data` members that say how many occurrences one event stands for, and over which window: the source of
/// OCSF's `count`, `start_time` and `end_time` (docs/events.md, "Field by field").
public struct OCSFAggregateFields: Sendable, Hashable {
    /// The member holding the count: an integer, or an object of integers that are summed (`request.refused`'s
    /// `counts`).
    public var count: String
    /// The member holding when the first occurrence happened (ISO 8601), or nil when the event says not.
    public var start: String?
    /// The member holding when the last one happened (ISO 8601), or nil when the event says not.
    public var end: String?

    /// Creates the fields.
    public init(count: String, start: String?, end: String?) {
        self.count = count
        self.start = start
        self.end = end
    }
}

extension EventType {
    /// Where an event of this type says how many occurrences it stands for, or nil for a type whose event stands
    /// for one. An exhaustive switch: a type added to the catalogue must say whether it aggregates.
    public var ocsfAggregate: OCSFAggregateFields? {
        switch self {
        case .rateLimitExceeded, .auditAccessed:
            return OCSFAggregateFields(count: "count", start: "first_at", end: "last_at")
        case .requestRefused, .tokenAccessRefused:
            return OCSFAggregateFields(count: "counts", start: "first_at", end: "last_at")
        case .auditEventsRefused: return OCSFAggregateFields(count: "count", start: nil, end: nil)
        case .auditWriteOutage:
            return OCSFAggregateFields(count: "requests_refused", start: "started_at", end: "ended_at")
        case .auditRefusalsDropped:
            return OCSFAggregateFields(count: "requests", start: "first_dropped_at", end: "last_dropped_at")
        case .auditSinkFailing, .auditCheckpointFailing, .auditWitnessFailing:
            return OCSFAggregateFields(count: "failures", start: "failing_since", end: nil)
        case .auditSinkRecovered, .auditCheckpointRecovered, .auditWitnessRecovered:
            return OCSFAggregateFields(count: "failures", start: "failing_since", end: "recovered_at")
        case .signinSucceeded, .signinFailed, .userRegistered, .identityLinked, .identityUnlinked, .tokenIssued,
            .tokenRefreshed, .tokenRefreshFailed, .tokenReuseDetected, .tokenRefreshReplayed, .tokenRevoked,
            .sessionLoggedOut, .sessionRevoked, .sessionExpired, .sessionReauthenticated, .providerConsentRevoked,
            .providerEmailChanged, .providerNotificationReceived, .providerRevocationAttempted, .accountDeleted,
            .accountActionRefused, .accountNotMeReported, .signinFlagged, .auditCheckpointSigned,
            .auditRetentionApplied,
            .auditCheckpointRefused,
            .auditWitnessAlarm, .auditWitnessAlarmCleared, .identityLocked, .identityUnlocked, .auditSealingStalled,
            .auditSealingRecovered:
            return nil
        }
    }
}
