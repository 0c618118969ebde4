public import AuthlogAccounts
import AuthlogCore

extension ServiceSettings {
    /// The settings of a configuration, every number range-checked, so that no later arithmetic on one can
    /// overflow.
    /// - Throws: ``ServerConfiguration/Invalid`` naming a value out of range.
    public init(configuration: ServerConfiguration) throws {
        self.init()
        self.accessTokenLifetime = try Self.seconds(
            configuration.accessToken?.ttlSeconds,
            "access_token.ttl_seconds",
            default: self.accessTokenLifetime,
            in: 1...86_400
        )
        try self.applyRefreshTokenSettings(configuration.refreshToken)
        try self.applyAccountSettings(configuration.account)
        self.nonceLifetime = try Self.seconds(
            configuration.nonceTTLSeconds,
            "nonce_ttl_seconds",
            default: self.nonceLifetime,
            in: 1...86_400
        )
    }

    /// `refresh_token.*`: the session lifetimes (up to ten years each) and the reuse grace window.
    private mutating func applyRefreshTokenSettings(_ refresh: ServerConfiguration.RefreshTokenSettings?) throws {
        let tenYears: ClosedRange<Int> = 1...(10 * 366 * 86_400)
        self.lifetimes.rememberMe = SessionLifetimes.Limits(
            absolute: try Self.seconds(
                refresh?.rememberMeTTLSeconds,
                "refresh_token.remember_me_ttl_seconds",
                default: self.lifetimes.rememberMe.absolute,
                in: tenYears
            ),
            idle: try Self.seconds(
                refresh?.rememberMeIdleSeconds,
                "refresh_token.remember_me_idle_seconds",
                default: self.lifetimes.rememberMe.idle,
                in: tenYears
            )
        )
        self.lifetimes.plain = SessionLifetimes.Limits(
            absolute: try Self.seconds(
                refresh?.sessionTTLSeconds,
                "refresh_token.session_ttl_seconds",
                default: self.lifetimes.plain.absolute,
                in: tenYears
            ),
            idle: try Self.seconds(
                refresh?.sessionIdleSeconds,
                "refresh_token.session_idle_seconds",
                default: self.lifetimes.plain.idle,
                in: tenYears
            )
        )
        self.refreshReuseGrace = try Self.seconds(
            refresh?.reuseGraceSeconds,
            "refresh_token.reuse_grace_seconds",
            default: Int64(ConfigurationDefaults.refreshReuseGraceSeconds),
            in: Self.refreshReuseGraceRange
        )
    }

    /// `account.*`: re-authentication, linking by email, notification age and revocation retries.
    private mutating func applyAccountSettings(_ account: ServerConfiguration.AccountSettings?) throws {
        self.reauthenticationWindow = try Self.seconds(
            account?.reauthenticationWindowSeconds,
            "account.reauthentication_window_seconds",
            default: self.reauthenticationWindow,
            in: 1...86_400
        )
        self.linkByVerifiedEmail = account?.linkByVerifiedEmail ?? self.linkByVerifiedEmail
        self.notificationMaximumAge = try Self.seconds(
            account?.notificationMaximumAgeSeconds,
            "account.notification_maximum_age_seconds",
            default: self.notificationMaximumAge,
            in: 60...(7 * 86_400)
        )
        self.revocationRetryBase = try Self.seconds(
            account?.revocationRetrySeconds,
            "account.revocation_retry_seconds",
            default: self.revocationRetryBase,
            in: 1...86_400
        )
    }

    /// ``checked(_:_:default:in:)`` for a number of seconds kept as `Int64`.
    private static func seconds(
        _ value: Int?,
        _ name: String,
        default fallback: Int64,
        in range: ClosedRange<Int>
    ) throws -> Int64 {
        Int64(try Self.checked(value, name, default: Int(fallback), in: range))
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
