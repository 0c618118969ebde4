/// The lifetimes and limits the service works with, resolved from ``ServerConfiguration`` defaults.
public struct ServiceSettings: Sendable {
    /// Access-token lifetime, seconds.
    public var accessTokenLifetime: Int64 = 900
    /// Absolute lifetime of a "remember me" refresh-token family, seconds.
    public var rememberMeLifetime: Int64 = 30 * 86_400
    /// Absolute lifetime of a non-"remember me" refresh token, seconds.
    public var sessionLifetime: Int64 = 12 * 3_600
    /// Lifetime of issued nonces, seconds.
    public var nonceLifetime: Int64 = 600
    /// How often a command is re-decided after an expected-version conflict.
    public var maximumAttempts = 6

    /// The defaults.
    public init() {}
}
