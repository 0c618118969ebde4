/// Where an event lands in the Open Cybersecurity Schema Framework (OCSF): its class and activity.
///
/// Chosen from the schema's own definitions (OCSF ``schemaVersion``; docs/events.md, "OCSF", says why for
/// each type). `OCSFMappingTests` holds every class, activity and caption to a copy of the schema's files.
public struct OCSFMapping: Sendable, Hashable {
    /// The OCSF schema version the mapping was chosen from.
    public static let schemaVersion = "1.8.0"

    /// The event class's `class_uid` (category × 1000 + class).
    public var classUID: Int
    /// The class's caption, OCSF's `class_name`.
    public var className: String
    /// The class's `activity_id`.
    public var activityID: Int
    /// The activity's caption in the schema (`Other` for 99).
    public var activityCaption: String

    /// Creates a mapping.
    public init(classUID: Int, className: String, activityID: Int, activityCaption: String) {
        self.classUID = classUID
        self.className = className
        self.activityID = activityID
        self.activityCaption = activityCaption
    }

    /// OCSF's `type_uid`: `class_uid` × 100 + `activity_id`.
    public var typeUID: Int { self.classUID * 100 + self.activityID }

    /// OCSF's `category_uid`: the thousands of `class_uid`.
    public var categoryUID: Int { self.classUID / 1000 }

    /// The activity id that says the activity is not one the class defines; `activity_name` then carries the
    /// source's own name.
    public static let otherActivity = 99

    /// Authentication's `class_uid`.
    public static let authenticationClass = 3002
    /// Account Change's `class_uid`.
    public static let accountChangeClass = 3001
    /// API Activity's `class_uid`.
    public static let apiActivityClass = 6003
    /// Web Resource Access Activity's `class_uid`.
    public static let webResourceAccessClass = 6004
    /// Event Log Activity's `class_uid`.
    public static let eventLogActivityClass = 1008

    /// OCSF's `category_name`: the caption of ``categoryUID`` in the schema's `categories.json`.
    public var categoryName: String {
        switch self.categoryUID {
        case 1: return "System Activity"
        case 3: return "Identity & Access Management"
        case 6: return "Application Activity"
        default: return "Other"
        }
    }
}

extension EventType {
    /// The OCSF class and activity events of this type map to.
    public var ocsf: OCSFMapping {
        switch self {
        case .signinSucceeded, .signinFailed: return .authentication(1, "Logon")
        case .sessionLoggedOut, .sessionRevoked, .sessionExpired: return .authentication(2, "Logoff")
        case .sessionReauthenticated, .tokenIssued, .tokenRefreshed, .tokenRefreshFailed, .tokenAccessRefused,
            .tokenReuseDetected, .tokenRefreshReplayed, .tokenRevoked, .signinFlagged:
            return .authentication(OCSFMapping.otherActivity, "Other")
        case .userRegistered: return .accountChange(1, "Create")
        case .accountDeleted: return .accountChange(6, "Delete")
        case .identityLocked: return .accountChange(9, "Lock")
        case .identityUnlocked: return .accountChange(12, "Unlock")
        case .identityLinked, .identityUnlinked, .providerConsentRevoked, .providerEmailChanged,
            .accountActionRefused, .accountNotMeReported:
            return .accountChange(OCSFMapping.otherActivity, "Other")
        case .providerNotificationReceived: return .apiActivity(OCSFMapping.otherActivity, "Other")
        case .providerRevocationAttempted: return .apiActivity(4, "Delete")
        case .auditAccessed: return .eventLogActivity(3, "Export")
        case .auditRetentionApplied: return .eventLogActivity(2, "Delete")
        case .auditCheckpointSigned, .auditCheckpointRefused, .auditEventsRefused, .auditWitnessAlarm,
            .auditWitnessAlarmCleared, .auditWriteOutage, .auditSinkFailing, .auditCheckpointFailing,
            .auditSealingStalled,
            .auditWitnessFailing, .auditSinkRecovered, .auditCheckpointRecovered, .auditSealingRecovered,
            .auditWitnessRecovered,
            .auditRefusalsDropped:
            return .eventLogActivity(OCSFMapping.otherActivity, "Other")
        case .rateLimitExceeded, .requestRefused: return .webResourceAccess(2, "Access Deny")
        }
    }

    /// OCSF's `activity_name`: the activity's caption, or for an activity the class does not define (99,
    /// `Other`) authlog's own type, as the schema asks.
    public var ocsfActivityName: String {
        let mapping = self.ocsf
        return mapping.activityID == OCSFMapping.otherActivity ? self.rawValue : mapping.activityCaption
    }
}

extension Outcome {
    /// OCSF's `status_id`: 1 (Success) or 2 (Failure).
    public var ocsfStatusID: Int {
        switch self {
        case .success: return 1
        case .failure: return 2
        }
    }

    /// OCSF's `status`, the caption of ``ocsfStatusID``.
    public var ocsfStatus: String {
        switch self {
        case .success: return "Success"
        case .failure: return "Failure"
        }
    }
}

/// OCSF's `auth_protocol_id` and `auth_protocol` of an authentication.
///
/// From the sign-in's provider and `data.method`: 6 (`OAUTH 2.0`) for GitHub, whose sign-in is an OAuth 2.0
/// authorization code with no ID token, and for any provider's `access_token` proof; 4 (`OpenID`) for the
/// providers that prove a user with an ID token (Apple, Google, GitLab, Kakao, Firebase, and configured OIDC
/// providers); 99 (`Other`) for the `dev` provider's development sign-in (`auth_protocol` `development`) and for
/// authlog's own session tokens, which no standard protocol carries (`auth_protocol` `authlog session token`).
public enum OCSFAuthProtocol {
    /// The `auth_protocol_id` of `provider`, with its caption.
    /// - Parameters:
    ///   - provider: The envelope's `provider`.
    ///   - method: The sign-in's `data.method` (`id_token`, `authorization_code`, `access_token`, `development`).
    /// - Returns: The id and its caption in the schema's dictionary (for 99, the source's own name).
    public static func of(provider: String, method: String? = nil) -> (id: Int, caption: String) {
        if provider == "dev" || method == "development" { return (OCSFMapping.otherActivity, "development") }
        if provider == "github" || method == "access_token" { return (6, "OAUTH 2.0") }
        return (4, "OpenID")
    }

    /// The protocol of an event about authlog's own access and refresh tokens (no provider named).
    public static let sessionToken = (id: OCSFMapping.otherActivity, caption: "authlog session token")
}

/// OCSF's `severity_id`, chosen from what an event means for a security team.
public enum OCSFSeverity: Int, Sendable, CaseIterable {
    /// 1: a normal activity, or a refusal of one (a failed sign-in, a rate limit).
    case informational = 1
    /// 2: a refusal that is more likely an attack than a mistake: a forged, replayed or misdirected proof, or
    /// a revoked refresh token presented again.
    case low = 2
    /// 3: a control acted: an identity locked, a rotated refresh token presented again (a stolen token); or the
    /// audit trail itself failed for a while (the log could not be written, refusal events were dropped, a sink
    /// stopped taking the log).
    case medium = 3
    /// 4: the log refused to sign a head or to seal events, or a witness holds a checkpoint the log
    /// contradicts: evidence of tampering with the log itself.
    case high = 4

    /// The caption in the schema's dictionary.
    public var caption: String {
        switch self {
        case .informational: return "Informational"
        case .low: return "Low"
        case .medium: return "Medium"
        case .high: return "High"
        }
    }
}

extension EventType {
    /// The severity of an event of this type with `outcome` and `reason` (docs/events.md, "OCSF").
    public func ocsfSeverity(outcome: Outcome, reason: String?) -> OCSFSeverity {
        switch self {
        case .auditCheckpointRefused, .auditEventsRefused, .auditWitnessAlarm: return .high
        case .tokenReuseDetected, .identityLocked, .auditWriteOutage, .auditRefusalsDropped, .auditSinkFailing,
            .auditCheckpointFailing, .auditSealingStalled, .auditWitnessFailing,
            .accountNotMeReported, .signinFlagged:
            return .medium
        case .signinFailed, .providerNotificationReceived, .tokenRefreshFailed, .tokenAccessRefused:
            guard outcome == .failure, let reason else { return .informational }
            return OCSFSeverity.forgeryReasons.contains(reason) ? .low : .informational
        case .signinSucceeded, .userRegistered, .identityLinked, .identityUnlinked, .tokenIssued, .tokenRefreshed,
            .tokenRefreshReplayed, .tokenRevoked, .sessionLoggedOut, .sessionRevoked, .sessionExpired,
            .sessionReauthenticated, .providerConsentRevoked, .providerEmailChanged, .providerRevocationAttempted,
            .accountDeleted, .accountActionRefused, .auditCheckpointSigned, .auditAccessed, .auditRetentionApplied,
            .rateLimitExceeded, .requestRefused, .identityUnlocked, .auditWitnessAlarmCleared, .auditSinkRecovered,
            .auditCheckpointRecovered, .auditSealingRecovered, .auditWitnessRecovered:
            return .informational
        }
    }
}

extension OCSFSeverity {
    /// The refusal reasons that say a proof or token was forged, replayed or meant for someone else.
    static let forgeryReasons: Set<String> = [
        "invalid_signature", "unsupported_alg", "unknown_kid", "forbidden_header", "issuer_mismatch",
        "audience_mismatch", "azp_mismatch", "nonce_mismatch", "nonce_replayed", "app_id_mismatch",
        "subject_mismatch", "revoked", "dpop_missing", "dpop_bad_signature", "dpop_wrong_key", "dpop_replayed",
        "dpop_ath_mismatch",
    ]
}

extension OCSFMapping {
    /// Authentication (3002): logon and logoff attempts and the stages of authentication.
    fileprivate static func authentication(_ activity: Int, _ caption: String) -> Self {
        Self(
            classUID: Self.authenticationClass,
            className: "Authentication",
            activityID: activity,
            activityCaption: caption
        )
    }

    /// Account Change (3001): user account management tasks.
    fileprivate static func accountChange(_ activity: Int, _ caption: String) -> Self {
        Self(
            classUID: Self.accountChangeClass,
            className: "Account Change",
            activityID: activity,
            activityCaption: caption
        )
    }

    /// API Activity (6003): create, read, update and delete API calls.
    fileprivate static func apiActivity(_ activity: Int, _ caption: String) -> Self {
        Self(classUID: Self.apiActivityClass, className: "API Activity", activityID: activity, activityCaption: caption)
    }

    /// Web Resource Access Activity (6004): attempts to access a web resource over HTTP.
    fileprivate static func webResourceAccess(_ activity: Int, _ caption: String) -> Self {
        Self(
            classUID: Self.webResourceAccessClass,
            className: "Web Resource Access Activity",
            activityID: activity,
            activityCaption: caption
        )
    }

    /// Event Log Activity (1008): actions on the event logging service and its data.
    fileprivate static func eventLogActivity(_ activity: Int, _ caption: String) -> Self {
        Self(
            classUID: Self.eventLogActivityClass,
            className: "Event Log Activity",
            activityID: activity,
            activityCaption: caption
        )
    }
}
