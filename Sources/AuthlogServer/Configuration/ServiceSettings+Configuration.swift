public import AuthlogAccounts
import AuthlogCore

extension ServiceSettings {
    /// The settings of a configuration, every number range-checked, so that no later arithmetic on one can
    /// overflow.
    /// - Throws: ``ServerConfiguration/Invalid`` naming a value out of range.
    public init(configuration: ServerConfiguration) throws {
        self.init()
        var settings = self
        let year = 366 * 86_400
        settings.accessTokenLifetime = Int64(
            try Self.checked(
                configuration.accessToken?.ttlSeconds,
                "access_token.ttl_seconds",
                default: Int(self.accessTokenLifetime),
                in: 1...86_400
            )
        )
        let refresh = configuration.refreshToken
        settings.lifetimes.rememberMe = SessionLifetimes.Limits(
            absolute: Int64(
                try Self.checked(
                    refresh?.rememberMeTTLSeconds,
                    "refresh_token.remember_me_ttl_seconds",
                    default: Int(self.lifetimes.rememberMe.absolute),
                    in: 1...(10 * year)
                )
            ),
            idle: Int64(
                try Self.checked(
                    refresh?.rememberMeIdleSeconds,
                    "refresh_token.remember_me_idle_seconds",
                    default: Int(self.lifetimes.rememberMe.idle),
                    in: 1...(10 * year)
                )
            )
        )
        settings.lifetimes.plain = SessionLifetimes.Limits(
            absolute: Int64(
                try Self.checked(
                    refresh?.sessionTTLSeconds,
                    "refresh_token.session_ttl_seconds",
                    default: Int(self.lifetimes.plain.absolute),
                    in: 1...(10 * year)
                )
            ),
            idle: Int64(
                try Self.checked(
                    refresh?.sessionIdleSeconds,
                    "refresh_token.session_idle_seconds",
                    default: Int(self.lifetimes.plain.idle),
                    in: 1...(10 * year)
                )
            )
        )
        settings.refreshReuseGrace = Int64(
            try Self.checked(
                refresh?.reuseGraceSeconds,
                "refresh_token.reuse_grace_seconds",
                default: ConfigurationDefaults.refreshReuseGraceSeconds,
                in: Self.refreshReuseGraceRange
            )
        )
        let account = configuration.account
        settings.reauthenticationWindow = Int64(
            try Self.checked(
                account?.reauthenticationWindowSeconds,
                "account.reauthentication_window_seconds",
                default: Int(self.reauthenticationWindow),
                in: 1...86_400
            )
        )
        settings.linkByVerifiedEmail = account?.linkByVerifiedEmail ?? self.linkByVerifiedEmail
        settings.notificationMaximumAge = Int64(
            try Self.checked(
                account?.notificationMaximumAgeSeconds,
                "account.notification_maximum_age_seconds",
                default: Int(self.notificationMaximumAge),
                in: 60...(7 * 86_400)
            )
        )
        settings.revocationRetryBase = Int64(
            try Self.checked(
                account?.revocationRetrySeconds,
                "account.revocation_retry_seconds",
                default: Int(self.revocationRetryBase),
                in: 1...86_400
            )
        )
        settings.nonceLifetime = Int64(
            try Self.checked(
                configuration.nonceTTLSeconds,
                "nonce_ttl_seconds",
                default: Int(self.nonceLifetime),
                in: 1...86_400
            )
        )
        self = settings
    }

    /// `value`, or `fallback` when absent.
    /// - Throws: ``ServerConfiguration/Invalid`` when `value` is outside `range`.
    static func checked(_ value: Int?, _ name: String, default fallback: Int, in range: ClosedRange<Int>) throws -> Int
    {
        guard let value else { return fallback }
        guard range.contains(value) else {
            throw ServerConfiguration.Invalid(description: "\(name) must be \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }
}
