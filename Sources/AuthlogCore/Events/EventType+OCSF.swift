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
}

extension EventType {
    /// The OCSF class and activity events of this type map to.
    public var ocsf: OCSFMapping {
        switch self {
        case .signinSucceeded, .signinFailed: return .authentication(1, "Logon")
        case .sessionLoggedOut, .sessionRevoked, .sessionExpired: return .authentication(2, "Logoff")
        case .sessionReauthenticated, .tokenIssued, .tokenRefreshed, .tokenRefreshFailed, .tokenReuseDetected,
            .tokenRefreshReplayed, .tokenRevoked:
            return .authentication(OCSFMapping.otherActivity, "Other")
        case .userRegistered: return .accountChange(1, "Create")
        case .accountDeleted: return .accountChange(6, "Delete")
        case .identityLocked: return .accountChange(9, "Lock")
        case .identityUnlocked: return .accountChange(12, "Unlock")
        case .identityLinked, .identityUnlinked, .providerConsentRevoked, .providerEmailChanged,
            .accountActionRefused:
            return .accountChange(OCSFMapping.otherActivity, "Other")
        case .providerNotificationReceived: return .apiActivity(OCSFMapping.otherActivity, "Other")
        case .providerRevocationAttempted: return .apiActivity(4, "Delete")
        case .auditAccessed: return .eventLogActivity(3, "Export")
        case .auditRetentionApplied: return .eventLogActivity(2, "Delete")
        case .auditCheckpointSigned, .auditCheckpointRefused, .auditEventsRefused, .auditWitnessAlarm,
            .auditWitnessAlarmCleared, .auditWriteOutage, .auditSinkFailing, .auditSinkRecovered,
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

/// OCSF's `auth_protocol_id` for a sign-in provider: 6 (`OAUTH 2.0`) for GitHub, whose sign-in is an OAuth 2.0
/// authorization code with no ID token; 4 (`OpenID`) for the providers that prove a user with an ID token
/// (Apple, Google, GitLab, Kakao, Firebase, and configured OIDC providers).
public enum OCSFAuthProtocol {
    /// The `auth_protocol_id` of `provider`, with its caption.
    /// - Parameter provider: The envelope's `provider`.
    /// - Returns: The id and its caption in the schema's dictionary.
    public static func of(provider: String) -> (id: Int, caption: String) {
        provider == "github" ? (6, "OAUTH 2.0") : (4, "OpenID")
    }
}

extension OCSFMapping {
    /// Authentication (3002): logon and logoff attempts and the stages of authentication.
    fileprivate static func authentication(_ activity: Int, _ caption: String) -> Self {
        Self(classUID: 3002, className: "Authentication", activityID: activity, activityCaption: caption)
    }

    /// Account Change (3001): user account management tasks.
    fileprivate static func accountChange(_ activity: Int, _ caption: String) -> Self {
        Self(classUID: 3001, className: "Account Change", activityID: activity, activityCaption: caption)
    }

    /// API Activity (6003): create, read, update and delete API calls.
    fileprivate static func apiActivity(_ activity: Int, _ caption: String) -> Self {
        Self(classUID: 6003, className: "API Activity", activityID: activity, activityCaption: caption)
    }

    /// Web Resource Access Activity (6004): attempts to access a web resource over HTTP.
    fileprivate static func webResourceAccess(_ activity: Int, _ caption: String) -> Self {
        Self(classUID: 6004, className: "Web Resource Access Activity", activityID: activity, activityCaption: caption)
    }

    /// Event Log Activity (1008): actions on the event logging service and its data.
    fileprivate static func eventLogActivity(_ activity: Int, _ caption: String) -> Self {
        Self(classUID: 1008, className: "Event Log Activity", activityID: activity, activityCaption: caption)
    }
}
