extension EventType {
    /// The types a user sees in their own activity (`GET /v1/me/activity`): sign-ins (failed proofs included
    /// when they name the user: a re-authentication or link refused), refreshes, logouts, revocations,
    /// identities linked and unlinked, re-authentications, and the user's own reports of entries that were not
    /// theirs, the sign-ins judged unusual for them (`signin.flagged`), and their tokens refused for want of
    /// the device's DPoP key (`token.access_refused`).
    public static let userActivity: Set<EventType> = [
        .signinSucceeded, .signinFailed, .tokenRefreshed, .sessionLoggedOut, .sessionRevoked, .tokenRevoked,
        .tokenReuseDetected, .providerConsentRevoked, .identityLinked, .identityUnlinked, .sessionReauthenticated,
        .accountNotMeReported, .signinFlagged, .tokenAccessRefused,
    ]
}
