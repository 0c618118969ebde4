import AuthlogAccounts

/// The `rate_limits` section resolved: every limit with its default applied and checked, or none at all when
/// `rate_limits.enabled` is `false`.
public struct RateLimitPolicy: Sendable {
    /// Whether any limit applies.
    public let enabled: Bool
    /// How long refusals of one key are summed before one event records them, seconds.
    public let windowSeconds: Int
    /// The per-address limit of each route group.
    public let perAddress: [LimitedRoute: RateLimit]
    /// Refreshes per refresh-token family.
    public let perFamily: RateLimit
    /// Requests per API key.
    public let perAPIKey: RateLimit
    /// The longest a refused request is held before its 429 (``RateLimiter/refusalDelay(_:)``), milliseconds.
    public var maximumRefusalDelayMilliseconds = RateLimitDefaults.maximumRefusalDelayMilliseconds

    /// No limit at all (`rate_limits.enabled: false`).
    public static let off = RateLimitPolicy(
        enabled: false,
        windowSeconds: RateLimitDefaults.windowSeconds,
        perAddress: [:],
        perFamily: RateLimitDefaults.perFamily,
        perAPIKey: RateLimitDefaults.perAPIKey
    )

    /// Every default.
    public static let defaults = RateLimitPolicy(
        enabled: true,
        windowSeconds: RateLimitDefaults.windowSeconds,
        perAddress: Dictionary(
            uniqueKeysWithValues: LimitedRoute.allCases.map { ($0, RateLimitDefaults.perAddress($0)) }
        ),
        perFamily: RateLimitDefaults.perFamily,
        perAPIKey: RateLimitDefaults.perAPIKey
    )

    /// A policy from its parts.
    public init(
        enabled: Bool,
        windowSeconds: Int,
        perAddress: [LimitedRoute: RateLimit],
        perFamily: RateLimit,
        perAPIKey: RateLimit
    ) {
        self.enabled = enabled
        self.windowSeconds = windowSeconds
        self.perAddress = perAddress
        self.perFamily = perFamily
        self.perAPIKey = perAPIKey
    }

    /// Resolves the `rate_limits` section of `configuration`.
    /// - Throws: ``ServerConfiguration/Invalid`` for a setting out of range, or for `log.reads_per_second` and
    ///   `log.read_burst`, which moved to `rate_limits.per_address.log_read`.
    public init(configuration: ServerConfiguration) throws {
        if configuration.log?.readsPerSecond != nil || configuration.log?.readBurst != nil {
            throw ServerConfiguration.Invalid(
                description:
                    "log.reads_per_second and log.read_burst moved to rate_limits.per_address.log_read (per_second, burst)"
            )
        }
        try self.init(settings: configuration.rateLimits)
    }

    /// Resolves `settings` (nil: every default).
    /// - Throws: ``ServerConfiguration/Invalid`` naming a rate out of range (0.001 to 1,000,000 a second,
    ///   bursts 1 to 1,000,000, the window 1 to 3,600 s).
    public init(settings: ServerConfiguration.RateLimitSettings?) throws {
        let base = Self.defaults
        self.enabled = settings?.enabled ?? true
        self.windowSeconds = try ServiceSettings.checked(
            settings?.windowSeconds,
            "rate_limits.window_seconds",
            default: base.windowSeconds,
            in: 1...3_600
        )
        var perAddress: [LimitedRoute: RateLimit] = [:]
        let groups = settings?.perAddress
        for route in LimitedRoute.allCases {
            let given: ServerConfiguration.RateLimitSettings.Rate?
            switch route {
            case .signin: given = groups?.signin
            case .refresh: given = groups?.refresh
            case .nonce: given = groups?.nonce
            case .revoke: given = groups?.revoke
            case .introspect: given = groups?.introspect
            case .logRead: given = groups?.logRead
            case .audit: given = groups?.audit
            case .account: given = groups?.account
            }
            perAddress[route] = try Self.rate(
                given,
                "rate_limits.per_address.\(route.rawValue)",
                default: RateLimitDefaults.perAddress(route)
            )
        }
        self.perAddress = perAddress
        self.perFamily = try Self.rate(settings?.perFamily, "rate_limits.per_family", default: base.perFamily)
        self.perAPIKey = try Self.rate(settings?.perAPIKey, "rate_limits.per_api_key", default: base.perAPIKey)
        self.maximumRefusalDelayMilliseconds = try ServiceSettings.checked(
            settings?.maximumRefusalDelayMs,
            "rate_limits.maximum_refusal_delay_ms",
            default: RateLimitDefaults.maximumRefusalDelayMilliseconds,
            in: 0...10_000
        )
    }

    private static func rate(
        _ given: ServerConfiguration.RateLimitSettings.Rate?,
        _ name: String,
        default fallback: RateLimit
    ) throws -> RateLimit {
        let perSecond = given?.perSecond ?? fallback.perSecond
        guard perSecond.isFinite, (0.001...1_000_000).contains(perSecond) else {
            throw ServerConfiguration.Invalid(description: "\(name).per_second must be 0.001 to 1000000")
        }
        let burst = try ServiceSettings.checked(
            given?.burst,
            "\(name).burst",
            default: fallback.burst,
            in: 1...1_000_000
        )
        return RateLimit(perSecond: perSecond, burst: burst)
    }
}
