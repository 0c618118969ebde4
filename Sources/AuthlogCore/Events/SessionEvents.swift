/// How far a logout reaches.
public enum LogoutScope: String, Codable, Sendable {
    /// Only the session whose access token was presented.
    case this
    /// Every session of the user.
    case all
}

/// The user logged out (`session.logged_out`).
public struct SessionLoggedOut: EventPayload {
    public static let eventType = EventType.sessionLoggedOut
    /// Whether one session or all of the user's sessions end.
    public var scope: LogoutScope

    /// Creates the payload.
    public init(scope: LogoutScope) { self.scope = scope }
}

/// An admin, a provider notice or a deletion ended the session (`session.revoked`).
public struct SessionRevoked: EventPayload {
    public static let eventType = EventType.sessionRevoked
    /// `admin`, `reuse`, `provider_consent_revoked`, `credential_revoked` or `account_deleted`.
    public var reason: String
    /// Who revoked it.
    public var actor: String?

    /// Creates the payload.
    public init(reason: String, actor: String? = nil) {
        self.reason = reason
        self.actor = actor
    }
}

/// The session's absolute or idle lifetime passed (`session.expired`).
public struct SessionExpired: EventPayload {
    public static let eventType = EventType.sessionExpired
    /// `absolute` or `idle`.
    public var limit: String

    /// Creates the payload.
    public init(limit: String) { self.limit = limit }
}
