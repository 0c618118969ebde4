/// The defaults of the `rate_limits` section and why (docs/configuration.md says the same). A per-address
/// limit must let a carrier-grade NAT through: thousands of phones can share one public address, and each
/// signs in rarely but refreshes every few minutes. So the per-address rates are set far above one person
/// and far below what a script sends: a script at 1,000 requests a second is slowed to a few per second,
/// while a NAT of 10,000 active users (a refresh each per 10 minutes: 17 a second) passes.
public enum RateLimitDefaults {
    /// `rate_limits.window_seconds`: refusals of one key are summed for a minute before one event records them.
    public static let windowSeconds = 60
    /// `per_address.signin`: a person signs in a few times a day; 10/s with bursts of 50 passes a large NAT.
    public static let signin = RateLimit(perSecond: 10, burst: 50)
    /// `per_address.refresh`: an app refreshes every access-token lifetime (15 min); 50/s serves 45,000
    /// active apps behind one address.
    public static let refresh = RateLimit(perSecond: 50, burst: 200)
    /// `per_address.nonce`: one nonce per sign-in, like sign-in.
    public static let nonce = RateLimit(perSecond: 10, burst: 50)
    /// `per_address.revoke`: logouts and revocations, rarer than sign-ins.
    public static let revoke = RateLimit(perSecond: 10, burst: 50)
    /// `per_address.introspect`: resource servers introspect per request they serve, from few addresses.
    public static let introspect = RateLimit(perSecond: 500, burst: 1_000)
    /// `per_address.log_read`: a monitor fetches a checkpoint and a few tiles a minute; a verifier catching up
    /// reads tiles in bursts. (This was `log.reads_per_second` and `log.read_burst`.)
    public static let logRead = RateLimit(perSecond: 50, burst: 200)
    /// `per_address.audit`: operator tools page through exports; no person needs more.
    public static let audit = RateLimit(perSecond: 20, burst: 100)
    /// `per_address.account`: a user opens their account screen (sessions, activity) or the app checks its
    /// credential state at launch, a few requests at a time; 20/s passes a NAT of thousands of such users.
    public static let account = RateLimit(perSecond: 20, burst: 100)
    /// `per_family`: one app instance refreshes once per access-token lifetime; a burst covers an app whose
    /// refresh answers were lost and that retries (the grace window), never a loop.
    public static let perFamily = RateLimit(perSecond: 1, burst: 10)
    /// `maximum_refusal_delay_ms`: a refused request is held for the time its limit takes to give one request,
    /// at most this long, so that a client ignoring `Retry-After` is slowed to its rate per connection.
    public static let maximumRefusalDelayMilliseconds = 1_000
    /// `per_api_key`: one key's operator or auditor calls, summed over its addresses.
    public static let perAPIKey = RateLimit(perSecond: 50, burst: 200)

    /// The default of a per-address group.
    public static func perAddress(_ route: LimitedRoute) -> RateLimit {
        switch route {
        case .signin: return Self.signin
        case .refresh: return Self.refresh
        case .nonce: return Self.nonce
        case .revoke: return Self.revoke
        case .introspect: return Self.introspect
        case .logRead: return Self.logRead
        case .audit: return Self.audit
        case .account: return Self.account
        }
    }
}

/// A token bucket's rate: `burst` requests at once, then `perSecond` a second.
public struct RateLimit: Sendable, Equatable {
    /// Requests a second, sustained.
    public let perSecond: Double
    /// Requests at once after a pause.
    public let burst: Int

    /// A rate of `perSecond` with bursts of `burst`.
    public init(perSecond: Double, burst: Int) {
        self.perSecond = perSecond
        self.burst = burst
    }
}
