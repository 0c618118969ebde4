public import AuthlogAccounts
import AuthlogCore

/// The rate limits of one `serve` process (``RateLimitPolicy``): a token bucket per client address and route
/// group, per refresh-token family and per API key. A refused request is answered 429 `rate_limited` with
/// `Retry-After`, counted in ``ServerMetrics`` and in the ``RefusalRecorder`` — never written on its own
/// path.
public final class RateLimiter: RefreshFamilyGate {
    /// The limits.
    public let policy: RateLimitPolicy
    /// Where refusals are counted for the log.
    public let recorder: RefusalRecorder
    let metrics: ServerMetrics
    private let perAddress: [LimitedRoute: ClientRateLimiter]
    private let perFamily: ClientRateLimiter
    private let perAPIKey: ClientRateLimiter

    /// A limiter of `policy`, counting into `metrics`; `shared` when a ``RateLimitSync`` shares its buckets
    /// with the other processes on the database. Its buckets refill by `uptime`, a monotonic clock in seconds
    /// (the system's uptime; tests pass a clock they move themselves).
    public init(
        policy: RateLimitPolicy,
        metrics: ServerMetrics,
        shared: Bool = false,
        uptime: (@Sendable () -> Double)? = nil
    ) {
        let uptime = uptime ?? ClientRateLimiter.systemUptime
        self.policy = policy
        self.recorder = RefusalRecorder(policy: policy)
        self.metrics = metrics
        func bucket(_ limit: RateLimit) -> ClientRateLimiter {
            ClientRateLimiter(perSecond: limit.perSecond, burst: limit.burst, shared: shared, uptime: uptime)
        }
        self.perAddress = policy.perAddress.mapValues(bucket)
        self.perFamily = bucket(policy.perFamily)
        self.perAPIKey = bucket(policy.perAPIKey)
    }

    /// Every bucket set by the name ``RateLimitSync`` stores it under: `address:<route group>`, `family`,
    /// `api_key`.
    var sharedBuckets: [String: ClientRateLimiter] {
        var buckets = ["family": self.perFamily, "api_key": self.perAPIKey]
        for (route, bucket) in self.perAddress { buckets["address:" + route.rawValue] = bucket }
        return buckets
    }

    /// Takes one request of `route` from `address`.
    /// - Throws: 429 `rate_limited` with `Retry-After` when the address has used up the group's bucket.
    func admit(_ route: LimitedRoute, address: IPAddress?, requestID: String) throws(ServiceError) {
        guard self.policy.enabled, let bucket = self.perAddress[route] else { return }
        let key = address?.limitKey ?? "unknown"
        guard let wait = bucket.acquire(key) else { return }
        try self.refuse(scope: .address, key: key, route: route.rawValue, wait: wait, requestID: requestID)
    }

    /// Takes one refresh of the token family `family`.
    /// - Throws: 429 `rate_limited` when the family has used up its bucket.
    public func admitRefresh(family: String, requestID: String) throws(ServiceError) {
        guard self.policy.enabled, let wait = self.perFamily.acquire(family) else { return }
        try self.refuse(
            scope: .family,
            key: family,
            route: LimitedRoute.refresh.rawValue,
            wait: wait,
            requestID: requestID
        )
    }

    /// Takes one request made with the API key `name`.
    /// - Throws: 429 `rate_limited` when the key has used up its bucket.
    func admit(apiKey name: String, requestID: String) throws(ServiceError) {
        guard self.policy.enabled, let wait = self.perAPIKey.acquire(name) else { return }
        try self.refuse(scope: .apiKey, key: name, route: LimitedRoute.audit.rawValue, wait: wait, requestID: requestID)
    }

    /// The refusal of a request of a key that holds its slot of `route` already (429 `rate_limited`), or, with
    /// `serverWide`, of one met by every slot of the process taken (503 `streams_busy`: the server's bound, not
    /// the client's fault); `Retry-After: 1` either way, counted and recorded as a rate-limited request is.
    func busyRefusal(apiKey name: String, route: String, serverWide: Bool, requestID: String) -> ServiceError {
        let refusal = self.refusal(scope: .apiKey, key: name, route: route, wait: 1, requestID: requestID)
        guard serverWide else { return refusal }
        return ServiceError(
            .serviceUnavailable,
            "streams_busy",
            "Every export stream of this server is in use; retry in 1 s.",
            headers: [.retryAfter: "1"]
        )
    }

    /// How long a refused request of `route` is held before its 429 is sent: the time its limit takes to give
    /// one request (at most `rate_limits.maximum_refusal_delay_ms`, a second by default). A client that keeps sending on refusal is thus slowed to about its
    /// limit's rate per connection, instead of costing the server a full-speed stream of refusals; an honest
    /// client waits `Retry-After` anyway.
    public func refusalDelay(_ route: LimitedRoute) -> Duration {
        let limit = self.policy.perAddress[route] ?? RateLimitDefaults.perAddress(route)
        let perSecond = route == .refresh ? min(limit.perSecond, self.policy.perFamily.perSecond) : limit.perSecond
        return .milliseconds(Int64(min(Double(self.policy.maximumRefusalDelayMilliseconds), 1_000 / perSecond)))
    }

    /// How long a refused request of `route` from `address` is held: ``refusalDelay(_:)``, doubled for each
    /// level the address's refusals have outrun its bucket (``ClientRateLimiter/refusalLevel(_:now:)``), at
    /// most `rate_limits.maximum_refusal_delay_ms`. A client that takes a 429 now and then waits the limit's
    /// interval; one that keeps sending on refusal soon waits the whole maximum, so a flood from one address
    /// costs the server at most one refusal per connection per maximum delay.
    func refusalDelay(_ route: LimitedRoute, address: IPAddress?) -> Duration {
        let base = self.refusalDelay(route)
        guard let bucket = self.perAddress[route] else { return base }
        let level = bucket.refusalLevel(address?.limitKey ?? "unknown")
        guard level > 0 else { return base }
        let maximum = Duration.milliseconds(Int64(self.policy.maximumRefusalDelayMilliseconds))
        return min(maximum, base * (1 << min(level, 10)))
    }

    private func refuse(
        scope: LimitScope,
        key: String,
        route: String,
        wait: Int,
        requestID: String
    ) throws(ServiceError) {
        throw self.refusal(scope: scope, key: key, route: route, wait: wait, requestID: requestID)
    }

    /// Counts and records a refused request; returns its 429.
    private func refusal(
        scope: LimitScope,
        key: String,
        route: String,
        wait: Int,
        requestID: String
    ) -> ServiceError {
        self.metrics.recordRateLimited(scope: scope.rawValue, route: route)
        self.recorder.noteRateLimited(scope: scope, key: key, route: route, requestID: requestID)
        return ServiceError(
            .tooManyRequests,
            "rate_limited",
            "Too many requests; retry in \(wait) s.",
            headers: [.retryAfter: String(wait)]
        )
    }
}
