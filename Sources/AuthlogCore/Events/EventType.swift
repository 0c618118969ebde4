/// Every event type authlog records, with its stable stored name (`noun.past_verb`).
///
/// The raw value is what is stored in the `type` column; renaming a case never changes it.
public enum EventType: String, CaseIterable, Sendable, Codable {
    case signinSucceeded = "signin.succeeded"
    case signinFailed = "signin.failed"
    case userRegistered = "user.registered"
    case identityLinked = "identity.linked"
    case identityUnlinked = "identity.unlinked"
    case tokenIssued = "token.issued"
    case tokenRefreshed = "token.refreshed"
    case tokenRefreshFailed = "token.refresh_failed"
    case tokenAccessRefused = "token.access_refused"
    case tokenReuseDetected = "token.reuse_detected"
    case tokenRefreshReplayed = "token.refresh_replayed"
    case tokenRevoked = "token.revoked"
    case sessionLoggedOut = "session.logged_out"
    case sessionRevoked = "session.revoked"
    case sessionExpired = "session.expired"
    case sessionReauthenticated = "session.reauthenticated"
    case providerConsentRevoked = "provider.consent_revoked"
    case providerEmailChanged = "provider.email_changed"
    case providerNotificationReceived = "provider.notification_received"
    case providerRevocationAttempted = "provider.revocation_attempted"
    case accountDeleted = "account.deleted"
    case accountActionRefused = "account.action_refused"
    case accountNotMeReported = "account.not_me_reported"
    case signinFlagged = "signin.flagged"
    case auditCheckpointSigned = "audit.checkpoint_signed"
    case auditAccessed = "audit.accessed"
    case auditRetentionApplied = "audit.retention_applied"
    case auditCheckpointRefused = "audit.checkpoint_refused"
    case auditEventsRefused = "audit.events_refused"
    case auditWitnessAlarm = "audit.witness_alarm"
    case auditWitnessAlarmCleared = "audit.witness_alarm_cleared"
    case auditWriteOutage = "audit.write_outage"
    case auditSinkFailing = "audit.sink_failing"
    case auditSinkRecovered = "audit.sink_recovered"
    case auditCheckpointFailing = "audit.checkpoint_failing"
    case auditCheckpointRecovered = "audit.checkpoint_recovered"
    case auditSealingStalled = "audit.sealing_stalled"
    case auditSealingRecovered = "audit.sealing_recovered"
    case auditWitnessFailing = "audit.witness_failing"
    case auditWitnessRecovered = "audit.witness_recovered"
    case auditRefusalsDropped = "audit.refusals_dropped"
    case rateLimitExceeded = "ratelimit.exceeded"
    case requestRefused = "request.refused"
    case identityLocked = "identity.locked"
    case identityUnlocked = "identity.unlocked"
}

/// Whether the recorded action succeeded.
public enum Outcome: String, Sendable, Codable, CaseIterable {
    case success
    case failure
}

/// An envelope column that a type requires to be filled.
public enum EnvelopeField: String, Sendable, CaseIterable {
    case userID = "user_id"
    case sessionID = "session_id"
    case provider
    case reason
}

extension EventType {
    /// The stream categories events of this type may be appended to.
    public var streamCategories: Set<String> {
        switch self {
        case .signinSucceeded, .tokenIssued, .tokenRefreshed, .tokenReuseDetected, .tokenRefreshReplayed,
            .tokenRevoked, .sessionLoggedOut, .sessionRevoked, .sessionExpired, .sessionReauthenticated:
            return ["session"]
        case .signinFailed: return ["signin"]
        case .tokenRefreshFailed: return ["session", "signin"]
        case .tokenAccessRefused: return ["session"]
        case .userRegistered, .identityLinked, .identityUnlinked, .providerConsentRevoked, .providerEmailChanged,
            .providerRevocationAttempted, .accountDeleted, .accountActionRefused, .accountNotMeReported,
            .signinFlagged:
            return ["user"]
        case .providerNotificationReceived: return ["provider"]
        case .auditCheckpointSigned, .auditAccessed, .auditRetentionApplied, .auditCheckpointRefused,
            .auditEventsRefused, .auditWitnessAlarm, .auditWitnessAlarmCleared, .auditWriteOutage, .auditSinkFailing,
            .auditCheckpointFailing, .auditSealingStalled, .auditWitnessFailing,
            .auditSinkRecovered, .auditCheckpointRecovered, .auditSealingRecovered, .auditWitnessRecovered,
            .auditRefusalsDropped:
            return ["audit"]
        case .rateLimitExceeded, .requestRefused: return ["ratelimit"]
        case .identityLocked, .identityUnlocked: return ["identity"]
        }
    }

    /// The envelope columns that must be filled for this type.
    public var requiredFields: Set<EnvelopeField> {
        switch self {
        case .signinSucceeded: return [.userID, .sessionID, .provider]
        case .signinFailed: return [.provider, .reason]
        case .userRegistered, .identityLinked, .identityUnlinked: return [.userID, .provider]
        case .tokenIssued, .tokenRefreshed, .tokenReuseDetected, .tokenRefreshReplayed, .tokenRevoked,
            .sessionLoggedOut, .sessionRevoked, .sessionExpired:
            return [.userID, .sessionID]
        case .sessionReauthenticated: return [.userID, .sessionID, .provider]
        case .providerNotificationReceived: return [.provider]
        case .providerRevocationAttempted: return [.userID, .provider]
        case .accountActionRefused: return [.userID, .reason]
        case .tokenRefreshFailed: return [.reason]
        case .tokenAccessRefused: return [.userID, .sessionID, .reason]
        case .providerConsentRevoked: return [.userID, .provider]
        case .providerEmailChanged: return [.userID, .provider]
        case .accountDeleted, .accountNotMeReported: return [.userID]
        case .signinFlagged: return [.userID, .provider, .reason]
        case .auditCheckpointSigned, .auditAccessed, .auditRetentionApplied, .auditSinkRecovered,
            .auditCheckpointRecovered, .auditSealingRecovered, .auditWitnessRecovered:
            return []
        case .auditCheckpointRefused, .auditEventsRefused, .auditWitnessAlarm, .auditWriteOutage, .auditSinkFailing,
            .auditCheckpointFailing, .auditSealingStalled, .auditWitnessFailing,
            .auditRefusalsDropped:
            return [.reason]
        case .auditWitnessAlarmCleared: return []
        case .rateLimitExceeded, .requestRefused: return [.reason]
        case .identityLocked: return [.provider, .reason]
        case .identityUnlocked: return [.provider]
        }
    }

    /// The outcome every event of this type carries, or `nil` when either is allowed.
    public var fixedOutcome: Outcome? {
        switch self {
        case .signinFailed, .tokenRefreshFailed, .tokenAccessRefused, .tokenReuseDetected, .accountActionRefused,
            .auditCheckpointRefused,
            .auditEventsRefused, .rateLimitExceeded, .requestRefused, .identityLocked, .auditWitnessAlarm,
            .auditWriteOutage, .auditSinkFailing, .auditCheckpointFailing, .auditSealingStalled, .auditWitnessFailing,
            .auditRefusalsDropped:
            return .failure
        case .signinSucceeded, .userRegistered, .identityLinked, .tokenIssued, .tokenRefreshed,
            .tokenRefreshReplayed, .sessionReauthenticated, .identityUnlocked, .auditWitnessAlarmCleared,
            .auditSinkRecovered, .auditCheckpointRecovered, .auditSealingRecovered, .auditWitnessRecovered,
            .accountNotMeReported:
            return .success
        default: return nil
        }
    }

    /// The Swift type of this event's `data`.
    public var payloadType: any EventPayload.Type {
        switch self {
        case .signinSucceeded: return SigninSucceeded.self
        case .signinFailed: return SigninFailed.self
        case .userRegistered: return UserRegistered.self
        case .identityLinked: return IdentityLinked.self
        case .identityUnlinked: return IdentityUnlinked.self
        case .tokenIssued: return TokenIssued.self
        case .tokenRefreshed: return TokenRefreshed.self
        case .tokenRefreshFailed: return TokenRefreshFailed.self
        case .tokenAccessRefused: return TokenAccessRefused.self
        case .tokenReuseDetected: return TokenReuseDetected.self
        case .tokenRefreshReplayed: return TokenRefreshReplayed.self
        case .tokenRevoked: return TokenRevoked.self
        case .sessionLoggedOut: return SessionLoggedOut.self
        case .sessionRevoked: return SessionRevoked.self
        case .sessionExpired: return SessionExpired.self
        case .sessionReauthenticated: return SessionReauthenticated.self
        case .providerConsentRevoked: return ProviderConsentRevoked.self
        case .providerEmailChanged: return ProviderEmailChanged.self
        case .providerNotificationReceived: return ProviderNotificationReceived.self
        case .providerRevocationAttempted: return ProviderRevocationAttempted.self
        case .accountDeleted: return AccountDeleted.self
        case .accountActionRefused: return AccountActionRefused.self
        case .accountNotMeReported: return AccountNotMeReported.self
        case .signinFlagged: return SigninFlagged.self
        case .auditCheckpointSigned: return AuditCheckpointSigned.self
        case .auditAccessed: return AuditAccessed.self
        case .auditRetentionApplied: return AuditRetentionApplied.self
        case .auditCheckpointRefused: return AuditCheckpointRefused.self
        case .auditEventsRefused: return AuditEventsRefused.self
        case .auditWitnessAlarm: return AuditWitnessAlarm.self
        case .auditWitnessAlarmCleared: return AuditWitnessAlarmCleared.self
        case .auditWriteOutage: return AuditWriteOutage.self
        case .auditSinkFailing: return AuditSinkFailing.self
        case .auditSinkRecovered: return AuditSinkRecovered.self
        case .auditCheckpointFailing: return AuditCheckpointFailing.self
        case .auditCheckpointRecovered: return AuditCheckpointRecovered.self
        case .auditSealingStalled: return AuditSealingStalled.self
        case .auditSealingRecovered: return AuditSealingRecovered.self
        case .auditWitnessFailing: return AuditWitnessFailing.self
        case .auditWitnessRecovered: return AuditWitnessRecovered.self
        case .auditRefusalsDropped: return AuditRefusalsDropped.self
        case .rateLimitExceeded: return RateLimitExceeded.self
        case .requestRefused: return RequestRefused.self
        case .identityLocked: return IdentityLocked.self
        case .identityUnlocked: return IdentityUnlocked.self
        }
    }
}

extension EventType {
    /// Whether only authlog itself may write this type: the log's own audit events, and the abuse limits'
    /// refusals, locks and unlocks. `POST /v1/events` refuses them from another system.
    public var isWrittenByAuthlogOnly: Bool {
        switch self {
        case .auditCheckpointSigned, .auditAccessed, .auditRetentionApplied, .auditCheckpointRefused,
            .auditEventsRefused, .auditWitnessAlarm, .auditWitnessAlarmCleared, .auditWriteOutage, .auditSinkFailing,
            .auditCheckpointFailing, .auditSealingStalled, .auditWitnessFailing,
            .auditSinkRecovered, .auditCheckpointRecovered, .auditSealingRecovered, .auditWitnessRecovered,
            .auditRefusalsDropped,
            .rateLimitExceeded, .requestRefused, .identityLocked,
            .identityUnlocked:
            return true
        default: return false
        }
    }
}
