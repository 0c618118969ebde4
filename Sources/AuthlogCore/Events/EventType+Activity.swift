extension EventType {
    /// The types a user sees in their own activity (`GET /v1/me/activity`): sign-ins (failed proofs included
    /// when they name the user: a re-authentication or link refused), refreshes, logouts, revocations,
    /// identities linked and unlinked, re-authentications, and the user's own reports of entries that were not
    /// theirs, the sign-ins judged unusual for them (`signin.flagged`), their tokens refused for want of the
    /// device's DPoP key or after their session ended (`token.access_refused`), and their refresh tokens
    /// refused (`token.refresh_failed`: expired, revoked, or sent without the device's DPoP key).
    public static let userActivity: Set<EventType> = [
        .signinSucceeded, .signinFailed, .tokenRefreshed, .tokenRefreshFailed, .sessionLoggedOut, .sessionRevoked,
        .tokenRevoked, .tokenReuseDetected, .providerConsentRevoked, .identityLinked, .identityUnlinked,
        .sessionReauthenticated, .accountNotMeReported, .signinFlagged, .tokenAccessRefused,
    ]
}
