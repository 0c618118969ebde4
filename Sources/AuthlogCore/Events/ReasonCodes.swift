/// Why a session ended: the `reason` of `session.revoked`, and `sessions.end_reason`.
public enum SessionEndReason: String, Sendable, Codable, CaseIterable {
    /// The user logged out of this session.
    case logout
    /// The user logged out of every session.
    case logoutAll = "logout_all"
    /// A rotated refresh token was presented again.
    case reuse
    /// An operator revoked it.
    case admin
    /// The provider said the user withdrew consent (Apple notification, Kakao unlink).
    case providerConsentRevoked = "provider_consent_revoked"
    /// The app reported that Apple's credential state is `revoked`.
    case credentialRevoked = "credential_revoked"
    /// The app reported that Apple's credential state is `not_found`.
    case credentialNotFound = "credential_not_found"
    /// The account was deleted.
    case accountDeleted = "account_deleted"
    /// Its refresh token (or an access token of it) was revoked through RFC 7009.
    case tokenRevoked = "token_revoked"
    /// Its user ended it from another of their sessions (`DELETE /v1/me/sessions/{id}`,
    /// `POST /v1/me/sessions/revoke-others`).
    case userRevoked = "user_revoked"
    /// Its user reported an entry of their activity as not theirs (`POST /v1/me/activity/{event_id}/not-me`):
    /// every session of theirs ended.
    case notMe = "not_me"
}

/// Which lifetime of a session passed (`session.expired`).
public enum SessionLimit: String, Sendable, Codable, CaseIterable {
    /// The session is older than its absolute lifetime.
    case absolute
    /// The session was not used for longer than its idle lifetime.
    case idle
}

/// The state of a refresh token in the `refresh_tokens` projection.
public enum RefreshTokenState: String, Sendable, Codable, CaseIterable {
    /// It can be rotated once.
    case active
    /// It was rotated; presenting it again is reuse.
    case rotated
    /// Its family or session was ended.
    case revoked
}

/// Why a refresh was refused (`token.refresh_failed`'s reason), for the refusals the token service decides.
public enum RefreshFailureReason: String, Sendable, CaseIterable {
    /// No refresh token has this hash: counted by address as `refresh_unknown_token`, not recorded alone
    /// (`token.refresh_failed` with it only in older logs).
    case unknownToken = "unknown_token"
    /// The token's own lifetime passed.
    case expired
    /// The token was revoked, or its session ended.
    case revoked
    /// The session passed its absolute or idle lifetime at this refresh.
    case sessionExpired = "session_expired"
}

/// Who told authlog that a user withdrew consent (`provider.consent_revoked`'s source).
public enum ConsentRevocationSource: String, Sendable, Codable, CaseIterable {
    /// Apple's server-to-server notification.
    case appleNotification = "apple_notification"
    /// Kakao's unlink callback.
    case kakaoUnlink = "kakao_unlink"
    /// The app reported `getCredentialState` → `revoked`.
    case appCredentialState = "app_credential_state"
}

/// What became of revoking a deleted user's grant at one provider.
public enum ProviderRevocationResult: String, Sendable, Codable, CaseIterable {
    /// The provider confirmed the revocation.
    case revoked
    /// The attempt failed; it is queued and retried with backoff.
    case queued
    /// Every retry failed; nobody will try again.
    case abandoned
    /// authlog held no token of this provider, so there was nothing to revoke.
    case none
}

/// A sensitive action of the signed-in user (`account.action_refused`'s action).
public enum AccountAction: String, Sendable, Codable, CaseIterable {
    /// `POST /v1/me/reauthenticate`.
    case reauthenticate
    /// `POST /v1/me/identities/{provider}`.
    case linkIdentity = "link_identity"
    /// `DELETE /v1/me/identities/{provider}`.
    case unlinkIdentity = "unlink_identity"
    /// `DELETE /v1/me`.
    case deleteAccount = "delete_account"
    /// `POST /v1/me/credential-state`.
    case credentialState = "credential_state"
    /// `DELETE /v1/me/sessions/{id}`.
    case endSession = "end_session"
    /// `POST /v1/me/activity/{event_id}/not-me`.
    case reportNotMe = "report_not_me"
}

/// Why a signed-in user's action was refused: the reason of `account.action_refused`, and the answer's
/// `error` code.
public enum AccountRefusalReason: String, Sendable, CaseIterable {
    /// The session's last authentication is older than the re-authentication window.
    case reauthenticationRequired = "reauthentication_required"
    /// The proof is for an identity of another user.
    case identityMismatch = "identity_mismatch"
    /// The identity to link belongs to another user.
    case identityInUse = "identity_in_use"
    /// The user has no identity of that provider.
    case identityNotLinked = "identity_not_linked"
    /// The identity to unlink is the user's last one.
    case lastIdentity = "last_identity"
    /// The session to end is not an active session of the user (unknown, malformed, ended or another's).
    case notFound = "not_found"
}

/// The reason of a `provider.notification_received` that was refused or acknowledged without effect (a
/// refused token's own reason, such as `invalid_signature`, is used as it is).
public enum NotificationReason: String, Sendable, CaseIterable {
    /// The callback lacks what it needs (Apple's `payload`, Kakao's `user_id`).
    case malformed
    /// Apple sent this `jti` before; nothing changes.
    case duplicate
    /// The notice names nobody authlog knows.
    case unknownSubject = "unknown_subject"
    /// Kakao's `KakaoAK` admin key is wrong or missing.
    case invalidClient = "invalid_client"
    /// Kakao's `app_id` is not this app's.
    case appIDMismatch = "app_id_mismatch"
}

/// Why a token was revoked (`token.revoked`'s reason).
public enum TokenRevocationReason: String, Sendable, CaseIterable {
    /// A client asked for it through RFC 7009 `POST /oauth/revoke`.
    case clientRevocation = "client_revocation"
}

/// How a sign-in's nonce was checked (`signin.succeeded`'s `nonce_check`).
public enum NonceCheck: String, Sendable, Codable, CaseIterable {
    /// The token's nonce fits the raw nonce the app sent.
    case matched
    /// The provider does not support nonces for this user (Apple without `nonce_supported`).
    case notSupported = "not_supported"
    /// Neither the token nor the app carried a nonce.
    case absent
}

/// Why a sign-in was refused (`signin.failed`'s reason) for the refusals authlog decides itself, apart from
/// a provider's own reason and a request that could not be read.
public enum SigninFailureReason: String, Sendable, CaseIterable {
    /// No provider of that name is enabled.
    case unknownProvider = "unknown_provider"
    /// The identity is locked after repeated failed proofs (`identity.locked`); answered exactly as a proof
    /// whose signature does not verify.
    case identityLocked = "identity_locked"
    /// The sign-in is unusual for its user and the policy of what is unusual is `deny` (`signin.flagged`
    /// follows in the same command).
    case signinUnusual = "signin_unusual"
    /// The sign-in is unusual for its user, the policy is `reauthenticate`, and the provider proof is not fresh.
    case reauthenticationRequired = "reauthentication_required"
}

/// Why an identity was locked (`identity.locked`'s envelope reason).
public enum IdentityLockReason: String, Sendable, CaseIterable {
    /// Failed proofs the provider vouched for reached the lockout's limit within its window.
    case tooManyFailures = "too_many_failures"
}

/// Why a request body could not be read: the reason recorded for the refusal, and the answer's `error`.
public enum RequestRefusalReason: String, Sendable, CaseIterable {
    /// The body is larger than allowed.
    case requestTooLarge = "request_too_large"
    /// The body did not arrive in time.
    case requestTimeout = "request_timeout"
    /// The body's media type is not the one the route takes.
    case unsupportedMediaType = "unsupported_media_type"
    /// The body is not well-formed.
    case malformedRequest = "malformed_request"
}
