/// What happened to the session on this device, for the app to follow with ``AuthlogClient/sessionEvents()``.
public enum SessionEvent: Sendable, Hashable {
    /// A sign-in stored a new session.
    case signedIn(userID: String, sessionID: String)
    /// The tokens were refreshed.
    case refreshed(sessionID: String)
    /// The session ended and its tokens were cleared: show the sign-in screen.
    case signedOut(SignOutReason)
}

/// Why the client signed out.
public enum SignOutReason: String, Sendable, Hashable {
    /// The app called ``AuthlogClient/logout(_:)``.
    case loggedOut = "logged_out"
    /// authlog refused the refresh token (`invalid_grant`): the session was revoked (logout elsewhere, an
    /// administrator, token reuse) or expired.
    case sessionEnded = "session_ended"
    /// The app reported a revoked or missing Apple credential.
    case credentialRevoked = "credential_revoked"
    /// The account was deleted.
    case accountDeleted = "account_deleted"
}
