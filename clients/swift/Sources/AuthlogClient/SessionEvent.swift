/// What happened to the session on this device, for the app to follow with ``AuthlogClient/sessionEvents()``.
///
/// Each new stream starts with ``initialSession(_:)``, the state at the time it was opened.
public enum SessionEvent: Sendable, Hashable {
    /// The first event of every stream: the session the client holds (`nil` when signed out), read from the
    /// token store if it was not read yet.
    case initialSession(SessionIdentity?)
    /// A sign-in stored a new session.
    case signedIn(userID: String, sessionID: String)
    /// The tokens were refreshed.
    case refreshed(sessionID: String)
    /// authlog found the sign-in just reported (``signedIn(userID:sessionID:)``), or the refresh just reported
    /// (``refreshed(sessionID:)``), unusual for the user, let it through and recorded it: show what was unusual
    /// and offer "this was not me" (``AuthlogClient/reportNotMe(eventID:)`` with ``SigninAlert/eventID``).
    case unusualSignin(SigninAlert)
    /// The session ended and its tokens were cleared: show the sign-in screen.
    case signedOut(SignOutReason)
}

/// Why the client signed out.
public enum SignOutReason: String, Sendable, Hashable {
    /// The app called ``AuthlogClient/logout(_:)``.
    case loggedOut = "logged_out"
    /// authlog refused the refresh token (`invalid_grant`): the session was revoked (logout elsewhere, an
    /// administrator, token reuse) or expired; or another process sharing the token store signed out.
    case sessionEnded = "session_ended"
    /// The app reported a revoked or missing Apple credential.
    case credentialRevoked = "credential_revoked"
    /// The account was deleted.
    case accountDeleted = "account_deleted"
    /// The user reported an entry of their activity as not theirs (``AuthlogClient/reportNotMe(eventID:)``):
    /// every session of theirs ended, this one too; they sign in again.
    case reportedNotMe = "reported_not_me"
    /// authlog refused a refresh as unusual for the user (`signin_unusual` or `reauthentication_required`: a new
    /// device, place or network under a policy that refuses it): the tokens were cleared; the user signs in
    /// again, with a fresh provider proof.
    case refusedAsUnusual = "refused_as_unusual"
}

/// Which session the client holds, without its tokens.
public struct SessionIdentity: Sendable, Hashable {
    /// authlog's user id.
    public var userID: String
    /// The session id.
    public var sessionID: String

    /// Creates the identity.
    public init(userID: String, sessionID: String) {
        self.userID = userID
        self.sessionID = sessionID
    }
}
