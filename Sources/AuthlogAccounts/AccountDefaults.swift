/// The defaults of the account rules' settings (``ServiceSettings``), by their configuration keys;
/// `ConfigurationDefaults` in AuthlogServer lists them with every other default of the configuration file.
public enum AccountDefaults {
    /// `access_token.ttl_seconds`.
    public static let accessTokenTTLSeconds = 900
    /// `refresh_token.remember_me_ttl_seconds` and `remember_me_idle_seconds`.
    public static let rememberMeTTLSeconds = 30 * 86_400
    public static let rememberMeIdleSeconds = 14 * 86_400
    /// `refresh_token.session_ttl_seconds` and `session_idle_seconds`.
    public static let sessionTTLSeconds = 12 * 3_600
    public static let sessionIdleSeconds = 2 * 3_600
    /// `refresh_token.reuse_grace_seconds`: a spent refresh token presented again within this many seconds of
    /// its rotation gets the same successor pair (docs/signin.md).
    public static let refreshReuseGraceSeconds = 10
    /// `account.reauthentication_window_seconds`.
    public static let reauthenticationWindowSeconds = 300
    /// `account.link_by_verified_email`.
    public static let linkByVerifiedEmail = false
    /// `account.notification_maximum_age_seconds`.
    public static let notificationMaximumAgeSeconds = 3_600
    /// `account.revocation_retry_seconds`.
    public static let revocationRetrySeconds = 60
    /// `nonce_ttl_seconds`.
    public static let nonceTTLSeconds = 600
}
