public import AuthlogCore

/// The lifetimes and limits the service works with, resolved from ``ServerConfiguration`` defaults.
public struct ServiceSettings: Sendable {
    /// Access-token lifetime, seconds.
    public var accessTokenLifetime = Int64(ConfigurationDefaults.accessTokenTTLSeconds)
    /// Absolute and idle lifetimes of sessions, "remember me" and plain.
    public var lifetimes = SessionLifetimes(
        rememberMe: SessionLifetimes.Limits(
            absolute: Int64(ConfigurationDefaults.rememberMeTTLSeconds),
            idle: Int64(ConfigurationDefaults.rememberMeIdleSeconds)
        ),
        plain: SessionLifetimes.Limits(
            absolute: Int64(ConfigurationDefaults.sessionTTLSeconds),
            idle: Int64(ConfigurationDefaults.sessionIdleSeconds)
        )
    )
    /// Absolute lifetime of a "remember me" refresh-token family, seconds.
    public var rememberMeLifetime: Int64 { self.lifetimes.rememberMe.absolute }
    /// Absolute lifetime of a non-"remember me" refresh token, seconds.
    public var sessionLifetime: Int64 { self.lifetimes.plain.absolute }
    /// How recent a session's authentication must be for linking, unlinking and deletion, seconds.
    public var reauthenticationWindow = Int64(ConfigurationDefaults.reauthenticationWindowSeconds)
    /// Whether a first sign-in whose verified email matches one user's is linked to that user, when the
    /// provider is authoritative for the email; otherwise it is refused with `account_exists`.
    public var linkByVerifiedEmail = ConfigurationDefaults.linkByVerifiedEmail
    /// The oldest Apple notification accepted, by `iat`, seconds.
    public var notificationMaximumAge = Int64(ConfigurationDefaults.notificationMaximumAgeSeconds)
    /// The first retry of a failed provider revocation waits this long, seconds; each next one twice as long.
    public var revocationRetryBase = Int64(ConfigurationDefaults.revocationRetrySeconds)
    /// How many attempts a provider revocation gets before it is abandoned.
    public var revocationMaximumAttempts = 12
    /// Lifetime of issued nonces, seconds.
    public var nonceLifetime = Int64(ConfigurationDefaults.nonceTTLSeconds)
    /// How often a command is re-decided after an expected-version conflict.
    public var maximumAttempts = 6

    /// The defaults (``ConfigurationDefaults``).
    public init() {}
}
