import AuthlogAccounts
public import AuthlogCore

extension ConfigurationDefaults {
    /// The default of every member that has one, by path, as `authlog config check` shows them: the top-level
    /// and nested members of ``ConfigurationDefaults``, ``RateLimitDefaults`` and ``LockoutPolicy``, the
    /// log's origin (from `public_url`), and the endpoints of each provider that `configuration` turns on.
    public static func members(for configuration: ServerConfiguration) -> [(path: MemberPath, value: JSONValue)] {
        var members: [(path: MemberPath, value: JSONValue)] = []
        func add(_ path: String, _ value: JSONValue) {
            members.append((MemberPath(members: path.split(separator: ".").map(String.init)), value))
        }
        func number(_ value: Int) -> JSONValue { .number(String(value)) }
        func rate(_ path: String, _ limit: RateLimit) {
            let perSecond =
                limit.perSecond.rounded() == limit.perSecond ? String(Int(limit.perSecond)) : "\(limit.perSecond)"
            add(path + ".per_second", .number(perSecond))
            add(path + ".burst", number(limit.burst))
        }
        add("host", .string(Self.host))
        add("port", number(Self.port))
        add("development", .bool(false))
        add("request_body_limit", number(Self.requestBodyLimit))
        add("nonce_ttl_seconds", number(Self.nonceTTLSeconds))
        add("provider_timeout_seconds", number(Self.providerTimeoutSeconds))
        add("read_database_max_lag_seconds", number(Self.readDatabaseMaxLagSeconds))
        add("connections.header_timeout_seconds", number(Self.headerTimeoutSeconds))
        add("connections.body_timeout_seconds", number(Self.bodyTimeoutSeconds))
        add("connections.idle_timeout_seconds", number(Self.idleTimeoutSeconds))
        add("connections.maximum_connections", number(Self.maximumConnections))
        add("connections.maximum_connections_per_address", number(Self.maximumConnectionsPerAddress))
        add("access_token.ttl_seconds", number(Self.accessTokenTTLSeconds))
        add("access_token.audience", .string(Self.accessTokenAudience))
        add("refresh_token.remember_me_ttl_seconds", number(Self.rememberMeTTLSeconds))
        add("refresh_token.session_ttl_seconds", number(Self.sessionTTLSeconds))
        add("refresh_token.remember_me_idle_seconds", number(Self.rememberMeIdleSeconds))
        add("refresh_token.session_idle_seconds", number(Self.sessionIdleSeconds))
        add("refresh_token.reuse_grace_seconds", number(Self.refreshReuseGraceSeconds))
        add("account.reauthentication_window_seconds", number(Self.reauthenticationWindowSeconds))
        add("account.link_by_verified_email", .bool(Self.linkByVerifiedEmail))
        add("account.notification_maximum_age_seconds", number(Self.notificationMaximumAgeSeconds))
        add("account.revocation_retry_seconds", number(Self.revocationRetrySeconds))
        add("log.origin", .string(CheckpointSettings.defaultOrigin(publicURL: configuration.publicURL)))
        add("log.checkpoint_every_events", number(Self.checkpointEveryEvents))
        add("log.checkpoint_every_seconds", number(Self.checkpointEverySeconds))
        add("log.witness_interval_seconds", number(Self.witnessIntervalSeconds))
        add("rate_limits.enabled", .bool(true))
        add("rate_limits.window_seconds", number(RateLimitDefaults.windowSeconds))
        add("rate_limits.maximum_refusal_delay_ms", number(RateLimitDefaults.maximumRefusalDelayMilliseconds))
        for route in LimitedRoute.allCases {
            rate("rate_limits.per_address.\(route.rawValue)", RateLimitDefaults.perAddress(route))
        }
        rate("rate_limits.per_family", RateLimitDefaults.perFamily)
        rate("rate_limits.per_api_key", RateLimitDefaults.perAPIKey)
        add("rate_limits.lockout.failures", number(LockoutPolicy.defaultFailures))
        add("rate_limits.lockout.window_seconds", number(LockoutPolicy.defaultWindowSeconds))
        add("rate_limits.lockout.first_lock_seconds", number(LockoutPolicy.defaultFirstLockSeconds))
        add("rate_limits.lockout.maximum_lock_seconds", number(LockoutPolicy.defaultMaximumLockSeconds))
        add("places.reload_interval_seconds", number(AccountComponents.defaultPlacesReloadSeconds))
        let judge = SigninJudge.Settings()
        let dpop = DPoPSettings()
        add("dpop.policy", .string(dpop.defaultPolicy.rawValue))
        add("dpop.nonces", .bool(dpop.noncesRequired))
        add("dpop.nonce_rotation_seconds", number(Int(dpop.nonceRotationSeconds)))
        add("dpop.maximum_age_seconds", number(Int(dpop.maximumAge)))
        add("dpop.maximum_skew_seconds", number(Int(dpop.maximumSkew)))
        add("alerts.enabled", .bool(true))
        add("alerts.maximum_speed_kmh", number(Int(judge.maximumKilometresPerHour)))
        add("alerts.known_devices", number(judge.maximumDevices))
        add("alerts.known_areas", number(judge.maximumAreas))
        add("alerts.history_signins", number(SigninAlertRules().historySignins))
        for kind in SigninJudgement.Kind.allCases {
            add("alerts.policies.\(kind.rawValue)", .string(SigninAlertPolicy.record.rawValue))
        }
        let providers = configuration.providers
        if providers?.apple != nil { add("providers.apple.jwks_url", .string(Self.appleJWKSURL)) }
        if providers?.google != nil { add("providers.google.jwks_url", .string(Self.googleJWKSURL)) }
        if providers?.gitlab != nil { add("providers.gitlab.issuer", .string(Self.gitlabIssuer)) }
        if providers?.kakao != nil { add("providers.kakao.jwks_url", .string(Self.kakaoJWKSURL)) }
        if providers?.firebase != nil { add("providers.firebase.jwks_url", .string(Self.firebaseJWKSURL)) }
        return members
    }
}
