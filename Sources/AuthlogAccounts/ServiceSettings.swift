public import AuthlogCore

/// The lifetimes and limits the service works with, with the defaults of ``AccountDefaults``.
public struct ServiceSettings: Sendable {
    /// Access-token lifetime, seconds.
    public var accessTokenLifetime = Int64(AccountDefaults.accessTokenTTLSeconds)
    /// Absolute and idle lifetimes of sessions, "remember me" and plain.
    public var lifetimes = SessionLifetimes(
        rememberMe: SessionLifetimes.Limits(
            absolute: Int64(AccountDefaults.rememberMeTTLSeconds),
            idle: Int64(AccountDefaults.rememberMeIdleSeconds)
        ),
        plain: SessionLifetimes.Limits(
            absolute: Int64(AccountDefaults.sessionTTLSeconds),
            idle: Int64(AccountDefaults.sessionIdleSeconds)
        )
    )
    /// Absolute lifetime of a "remember me" refresh-token family, seconds.
    public var rememberMeLifetime: Int64 { self.lifetimes.rememberMe.absolute }
    /// Absolute lifetime of a non-"remember me" refresh token, seconds.
    public var sessionLifetime: Int64 { self.lifetimes.plain.absolute }
    /// How recent a session's authentication must be for linking, unlinking and deletion, seconds.
    public var reauthenticationWindow = Int64(AccountDefaults.reauthenticationWindowSeconds)
    /// Whether a first sign-in whose verified email matches one user's is linked to that user, when the
    /// provider is authoritative for the email; otherwise it is refused with `account_exists`.
    public var linkByVerifiedEmail = AccountDefaults.linkByVerifiedEmail
    /// The oldest Apple notification accepted, by `iat`, seconds.
    public var notificationMaximumAge = Int64(AccountDefaults.notificationMaximumAgeSeconds)
    /// The first retry of a failed provider revocation waits this long, seconds; each next one twice as long.
    public var revocationRetryBase = Int64(AccountDefaults.revocationRetrySeconds)
    /// How many attempts a provider revocation gets before it is abandoned.
    public var revocationMaximumAttempts = 12
    /// Lifetime of issued nonces, seconds.
    public var nonceLifetime = Int64(AccountDefaults.nonceTTLSeconds)
    /// How often a command is re-decided after an expected-version conflict.
    public var maximumAttempts = 6
    /// `refresh_token.reuse_grace_seconds`: for how long after a rotation the spent token, presented again,
    /// gets the same successor pair instead of revoking its family (0: never; docs/signin.md).
    public var refreshReuseGrace = Int64(AccountDefaults.refreshReuseGraceSeconds)

    /// `rate_limits.lockout`: when an identity's sign-ins are locked after failed proofs its provider vouched
    /// for.
    public var lockout = LockoutPolicy()

    /// `alerts` and `places`: sign-in alerts (docs/signin.md, "Sign-in alerts").
    public var alerts = SigninAlertSettings()
    /// DPoP (RFC 9449): each client's policy, server nonces, the accepted age of a proof.
    public var dpop = DPoPSettings()

    /// The values `refresh_token.reuse_grace_seconds` may take.
    public static let refreshReuseGraceRange = 0...60

    /// The defaults (``AccountDefaults``).
    public init() {}
}
