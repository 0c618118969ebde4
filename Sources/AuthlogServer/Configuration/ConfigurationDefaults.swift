import AuthlogAccounts

/// Every default of the configuration file, in one place (those of the account rules come from
/// ``AccountDefaults``): what a setting is when the file leaves it out
/// (docs/configuration.md lists the same). The resolved settings (``ServiceSettings``, ``ConnectionLimits``,
/// ``CheckpointSettings``, the listening address and the provider endpoints) take their defaults from here and
/// nowhere else.
public enum ConfigurationDefaults {
    /// `host`: the address `serve` listens on.
    public static let host = "127.0.0.1"
    /// `port`.
    public static let port = 8080
    /// `request_body_limit`, bytes.
    public static let requestBodyLimit = 65_536
    /// `provider_timeout_seconds`: one outbound call to an identity provider, connection included.
    public static let providerTimeoutSeconds = 5
    /// `access_token.ttl_seconds`.
    public static let accessTokenTTLSeconds = AccountDefaults.accessTokenTTLSeconds
    /// `access_token.audience`.
    public static let accessTokenAudience = "authlog"
    /// `refresh_token.remember_me_ttl_seconds` and `remember_me_idle_seconds`.
    public static let rememberMeTTLSeconds = AccountDefaults.rememberMeTTLSeconds
    public static let rememberMeIdleSeconds = AccountDefaults.rememberMeIdleSeconds
    /// `refresh_token.session_ttl_seconds` and `session_idle_seconds`.
    public static let sessionTTLSeconds = AccountDefaults.sessionTTLSeconds
    public static let sessionIdleSeconds = AccountDefaults.sessionIdleSeconds
    /// `refresh_token.reuse_grace_seconds`.
    public static let refreshReuseGraceSeconds = AccountDefaults.refreshReuseGraceSeconds
    /// `account.reauthentication_window_seconds`.
    public static let reauthenticationWindowSeconds = AccountDefaults.reauthenticationWindowSeconds
    /// `account.link_by_verified_email`.
    public static let linkByVerifiedEmail = AccountDefaults.linkByVerifiedEmail
    /// `account.notification_maximum_age_seconds`.
    public static let notificationMaximumAgeSeconds = AccountDefaults.notificationMaximumAgeSeconds
    /// `account.revocation_retry_seconds`.
    public static let revocationRetrySeconds = AccountDefaults.revocationRetrySeconds
    /// `read_database_max_lag_seconds`.
    public static let readDatabaseMaxLagSeconds = 30
    /// `nonce_ttl_seconds`.
    public static let nonceTTLSeconds = AccountDefaults.nonceTTLSeconds
    /// `log.checkpoint_every_events` and `log.checkpoint_every_seconds`.
    public static let checkpointEveryEvents = 1000
    public static let checkpointEverySeconds = 60
    /// `log.witness_interval_seconds`.
    public static let witnessIntervalSeconds = 10
    /// `connections.header_timeout_seconds`, `body_timeout_seconds`, `idle_timeout_seconds` and
    /// `maximum_connections`.
    public static let headerTimeoutSeconds = 10
    public static let bodyTimeoutSeconds = 30
    public static let idleTimeoutSeconds = 60
    public static let maximumConnections = 2_048
    /// `connections.maximum_connections_per_address`: 1/16 of `maximum_connections`, so that one host (one
    /// address that is not a trusted proxy) never holds more than a small share of the slots.
    public static let maximumConnectionsPerAddress = ConfigurationDefaults.maximumConnections / 16
    /// How long a kept-alive connection may wait for its next request while three quarters of the slots or
    /// more are taken, when `idle_timeout_seconds` is longer.
    public static let busyIdleTimeoutSeconds = 5
    /// The providers' published endpoints (`providers.apple.jwks_url`, …).
    public static let appleJWKSURL = "https://appleid.apple.com/auth/keys"
    public static let googleJWKSURL = "https://www.googleapis.com/oauth2/v3/certs"
    public static let gitlabIssuer = "https://gitlab.com"
    public static let kakaoJWKSURL = "https://kauth.kakao.com/.well-known/jwks.json"
    public static let firebaseJWKSURL =
        "https://www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com"
}
