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
    /// Why it ended.
    public var reason: SessionEndReason
    /// Who revoked it.
    public var actor: String?

    /// Creates the payload.
    public init(reason: SessionEndReason, actor: String? = nil) {
        self.reason = reason
        self.actor = actor
    }
}

/// The session's absolute or idle lifetime passed (`session.expired`).
public struct SessionExpired: EventPayload {
    public static let eventType = EventType.sessionExpired
    /// Which lifetime passed.
    public var limit: SessionLimit

    /// Creates the payload.
    public init(limit: SessionLimit) { self.limit = limit }
}

/// The user proved an identity of theirs again, inside a session (`session.reauthenticated`): the
/// session's authentication time moves to now, which sensitive actions require to be recent.
public struct SessionReauthenticated: EventPayload {
    public static let eventType = EventType.sessionReauthenticated
    /// `id_token`, `authorization_code`, `access_token` or `development`.
    public var method: String
    /// The keyed hash of the provider subject that was proved.
    public var subjectHash: String

    /// Creates the payload.
    public init(method: String, subjectHash: String) {
        self.method = method
        self.subjectHash = subjectHash
    }
}
