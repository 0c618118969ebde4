extension ServerConfiguration {
    /// The `rate_limits` section: every abuse limit, each a rate with a burst (docs/configuration.md gives the
    /// defaults and why). ``RateLimitDefaults`` holds the defaults.
    public struct RateLimitSettings: Codable, Sendable {
        /// `false` turns every limit off (default `true`).
        public var enabled: Bool?
        /// How long refusals of one key are counted in memory before they are recorded as one event, in
        /// seconds (default 60).
        public var windowSeconds: Int?
        /// The limits per client address, by route group.
        public var perAddress: PerAddress?
        /// Refreshes per refresh-token family.
        public var perFamily: Rate?
        /// Requests per API key on the operator and auditor routes.
        public var perAPIKey: Rate?
        /// The lockout of one identity after failed proofs the provider vouched for.
        public var lockout: Lockout?
        /// The longest a refused request is held before its 429, milliseconds (default 1,000; 0: answered at once).
        public var maximumRefusalDelayMs: Int?

        /// An empty section: every default.
        public init() {}

        enum CodingKeys: String, CodingKey {
            case enabled, windowSeconds, perAddress, perFamily, lockout, maximumRefusalDelayMs
            case perAPIKey = "perApiKey"
        }

        /// A token bucket: `burst` requests at once, then `per_second` a second.
        public struct Rate: Codable, Sendable {
            /// The sustained rate, requests a second (> 0).
            public var perSecond: Double?
            /// How many requests may come at once after a pause (≥ 1).
            public var burst: Int?

            /// A rate; nil members take the default.
            public init(perSecond: Double? = nil, burst: Int? = nil) {
                self.perSecond = perSecond
                self.burst = burst
            }
        }

        /// The per-address limits of each route group.
        public struct PerAddress: Codable, Sendable {
            /// `POST /v1/signin/…` and the provider callbacks.
            public var signin: Rate?
            /// `POST /v1/token/refresh`.
            public var refresh: Rate?
            /// `POST /v1/nonces`.
            public var nonce: Rate?
            /// `POST /oauth/revoke`, `/v1/logout`.
            public var revoke: Rate?
            /// `POST /oauth/introspect`.
            public var introspect: Rate?
            /// The public log reads: proofs, checkpoint, tiles.
            public var logRead: Rate?
            /// The operator and auditor routes (`/v1/events`, `/v1/admin/…`, reports).
            public var audit: Rate?
            /// The signed-in user's own routes (`/v1/me`, `/v1/me/…`).
            public var account: Rate?
        }

        /// After `failures` counted failures of one identity within `window_seconds`, its sign-ins are refused
        /// for `first_lock_seconds`, doubling for each lock that follows while failures go on, up to
        /// `maximum_lock_seconds`.
        public struct Lockout: Codable, Sendable {
            /// Failures that lock (default 10).
            public var failures: Int?
            /// The window they are counted in, seconds (default 900).
            public var windowSeconds: Int?
            /// The first lock's length, seconds (default 60).
            public var firstLockSeconds: Int?
            /// The longest lock, seconds (default 3,600).
            public var maximumLockSeconds: Int?
        }
    }
}
