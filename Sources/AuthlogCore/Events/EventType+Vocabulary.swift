/// One line of the OWASP Logging Vocabulary mapping: events of a type whose outcome and reason fit give `name`.
///
/// A type's rules are tried in order and the first that fits decides; when none fits, the event has no
/// vocabulary name. Every name is one the OWASP Cheat Sheet Series' "Logging Vocabulary Cheat Sheet" defines
/// (docs/events.md, "OWASP Logging Vocabulary"); `OWASPVocabularyTests` holds them to a copy of the sheet.
public struct OWASPVocabularyRule: Sendable, Hashable {
    /// The outcome the event must have, or `nil` for either.
    public var outcome: Outcome?
    /// The envelope `reason`s the event must have one of, or `nil` for any reason (or none).
    public var reasons: Set<String>?
    /// The vocabulary name such events get, or `nil` when the sheet has none that fits.
    public var name: String?

    /// Creates a rule.
    public init(outcome: Outcome? = nil, reasons: Set<String>? = nil, name: String?) {
        self.outcome = outcome
        self.reasons = reasons
        self.name = name
    }

    /// Whether an event with this outcome and reason fits the rule.
    public func matches(outcome: Outcome, reason: String?) -> Bool {
        if let expected = self.outcome, expected != outcome { return false }
        if let reasons = self.reasons {
            guard let reason, reasons.contains(reason) else { return false }
        }
        return true
    }
}

extension EventType {
    /// The event's name in the OWASP Logging Vocabulary (`authn_login_success`, `authn_token_reuse`, …), or
    /// `nil` when the sheet has no name that fits: the first of ``owaspRules`` that the outcome and reason fit.
    /// - Parameters:
    ///   - outcome: The event's outcome.
    ///   - reason: The event's envelope `reason`.
    /// - Returns: The vocabulary name, or `nil`.
    public func owaspName(outcome: Outcome, reason: String?) -> String? {
        self.owaspRules.first { $0.matches(outcome: outcome, reason: reason) }?.name
    }

    /// The rules that give this type's vocabulary name, tried in order. A type that changes something
    /// (`identity.unlinked`, `session.revoked`, …) has its name only with outcome `success`: a failure means the
    /// change did not happen, and the sheet has no name for that.
    public var owaspRules: [OWASPVocabularyRule] {
        switch self {
        case .signinSucceeded, .sessionReauthenticated: return [.always("authn_login_success")]
        case .signinFailed: return [.always("authn_login_fail")]
        case .userRegistered: return [.always("user_created")]
        case .identityLinked, .identityUnlinked, .providerEmailChanged, .providerConsentRevoked:
            return [.success("user_updated")]
        case .accountDeleted: return [.success("user_deleted")]
        case .tokenIssued: return [.always("authn_token_created")]
        case .tokenRefreshed: return [.always("session_renewed")]
        case .tokenRefreshFailed:
            return [
                OWASPVocabularyRule(
                    reasons: [RefreshFailureReason.expired.rawValue, RefreshFailureReason.sessionExpired.rawValue],
                    name: "session_use_after_expire"
                ),
                OWASPVocabularyRule(reasons: [RefreshFailureReason.revoked.rawValue], name: "authn_token_reuse"),
                OWASPVocabularyRule(reasons: Self.refusedBodyReasons, name: "input_validation_fail"),
            ]
        case .tokenReuseDetected: return [.always("authn_token_reuse")]
        case .tokenRevoked, .providerRevocationAttempted: return [.success("authn_token_revoked")]
        case .sessionLoggedOut: return [.success("session_logout")]
        case .sessionRevoked, .sessionExpired: return [.success("session_expired")]
        // The user's own word that someone else used the account: every session ended, as the sheet's
        // `authn_token_revoked` names ending the tokens of a compromise.
        case .accountNotMeReported: return [.success("authn_token_revoked")]
        case .providerNotificationReceived:
            return [OWASPVocabularyRule(outcome: .failure, name: "input_validation_fail")]
        // A token used without the proof its key binds it to: the request was not authorized.
        case .tokenAccessRefused: return [.always("authz_fail")]
        case .accountActionRefused:
            return [
                OWASPVocabularyRule(reasons: Self.refusedBodyReasons, name: "input_validation_fail"),
                .always("authz_fail"),
            ]
        case .auditAccessed:
            return [
                .success("sensitive_read"),
                OWASPVocabularyRule(reasons: Self.refusedBodyReasons, name: "input_validation_fail"),
                .always("authz_fail"),
            ]
        case .auditRetentionApplied: return [.success("sensitive_delete")]
        case .rateLimitExceeded: return [.always("excess_rate_limit_exceeded")]
        case .requestRefused:
            return [
                OWASPVocabularyRule(reasons: ["per_address_cap"], name: "excess_rate_limit_exceeded"),
                .always("input_validation_fail"),
            ]
        case .identityLocked: return [.always("authn_login_lock")]
        // The sheet names impossible travel; a new device, country or network it does not.
        case .signinFlagged:
            return [
                OWASPVocabularyRule(
                    reasons: [SigninJudgement.Kind.impossibleTravel.rawValue],
                    name: "authn_impossible_travel"
                )
            ]
        case .tokenRefreshReplayed, .auditCheckpointSigned, .auditCheckpointRefused, .auditEventsRefused,
            .auditWitnessAlarm, .auditWitnessAlarmCleared, .auditWriteOutage, .auditSinkFailing,
            .auditCheckpointFailing, .auditSealingStalled, .auditWitnessFailing,
            .auditSinkRecovered, .auditCheckpointRecovered, .auditSealingRecovered, .auditWitnessRecovered,
            .auditRefusalsDropped,
            .identityUnlocked:
            return []
        }
    }

    /// Every vocabulary name some event can get, sorted.
    public static var owaspNames: [String] {
        Set(Self.allCases.flatMap { $0.owaspRules.compactMap(\.name) }).sorted()
    }

    /// The reasons recorded for a request whose body could not be read or was refused as a whole: the sheet's
    /// `input_validation_fail`.
    static let refusedBodyReasons: Set<String> = Set(RequestRefusalReason.allCases.map(\.rawValue)).union([
        "invalid_request"
    ])
}

extension OWASPVocabularyRule {
    /// Any event of the type.
    fileprivate static func always(_ name: String) -> Self { Self(name: name) }

    /// The type's events with outcome `success`.
    fileprivate static func success(_ name: String) -> Self { Self(outcome: .success, name: name) }
}
