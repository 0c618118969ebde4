public import AuthlogAccounts
public import AuthlogCore
public import AuthlogCrypto
public import AuthlogPlaces
public import AuthlogProviders

/// The account side of the server: the application services behind the sign-in, token, `/v1/me` and
/// provider-callback routes, and what those routes need. It is built over any ``EventStore`` and
/// ``AccountState``: PostgreSQL in `serve`, the in-memory stores of `AuthlogTesting` in the HTTP-shape tests.
public struct AccountComponents: Sendable {
    /// Sign-in and nonces.
    public let signin: SigninService
    /// Refresh, logout, introspection and revocation.
    public let tokens: TokenService
    /// The signed-in user's account: credential state, re-authentication, identities, deletion.
    public let accounts: AccountService
    /// Apple notifications and Kakao unlink callbacks.
    public let notifications: ProviderNotificationService
    /// Revokes deleted users' grants at their providers, and retries the ones that failed.
    public let revoker: ProviderRevoker
    /// Expires sessions past their lifetimes.
    public let sweeper: SessionSweeper
    /// The identity lockout's decisions: `serve` records the locks that ran out with it.
    public let locks: IdentityLocks
    /// What the services share.
    public let dependencies: ServiceDependencies
    /// What `/metrics` reports.
    public let metrics: ServerMetrics
    /// The enabled providers.
    public let registry: ProviderRegistry
    /// The largest request body, in bytes.
    public let bodyLimit: Int
    /// Peers whose `X-Forwarded-For` is believed.
    public let trustedProxies: TrustedProxies
    /// Introspection callers: id → secret.
    public let introspectionClients: [String: String]
    /// `public_url`: the base of the URLs DPoP proofs name (`htu`).
    public let publicURL: String?
    /// The operator's MaxMind DB files, when `places.city_database` is set: `serve` reloads them when they change
    /// and on SIGHUP.
    public let places: PlaceLookup?
    /// `places.reload_interval_seconds`.
    public let placesReloadSeconds: Int
    /// Whether subject and email hashes use the fixed development key (neither a subject key nor a data key
    /// is configured); `serve` warns.
    public let usesDevelopmentSubjectKey: Bool

    /// Builds the services from a configuration over `store` and `state`, reporting to `metrics`.
    /// - Throws: ``ServerConfiguration/Invalid`` for a bad setting; ``CryptoError`` for an unusable key.
    public init(
        configuration: ServerConfiguration,
        store: any EventStore,
        state: AccountState,
        metrics: ServerMetrics,
        accessTokenKey: PrivateKey,
        fetcher: any HTTPFetching
    ) throws {
        var settings = try ServiceSettings(configuration: configuration)
        settings.lockout = try Self.lockoutPolicy(of: configuration)
        settings.alerts = try Self.alertSettings(of: configuration)
        settings.dpop = try Self.dpopSettings(of: configuration)
        self.places = try Self.placeLookup(of: configuration)
        self.placesReloadSeconds = configuration.places?.reloadIntervalSeconds ?? Self.defaultPlacesReloadSeconds
        settings.alerts.places = self.places
        let keys = try Self.dataKeys(of: configuration)
        self.usesDevelopmentSubjectKey = keys.subject == nil
        self.metrics = metrics
        self.dependencies = ServiceDependencies(
            store: store,
            state: state,
            accessTokens: try Self.accessTokenIssuer(configuration: configuration, key: accessTokenKey),
            settings: settings,
            metrics: metrics,
            dataKey: keys.data,
            previousDataKeys: keys.previous,
            hasher: IdentityHasher(key: keys.subject ?? IdentityHasher.developmentKey),
            dpopNonces: try Self.dpopNonces(settings: settings.dpop, dataKey: keys.data)
        )
        self.publicURL = try Self.checkedPublicURL(configuration.publicURL)
        self.registry = try ProviderRegistry(
            settings: configuration.providers,
            development: configuration.development ?? false,
            fetcher: fetcher
        )
        let services = Self.services(dependencies: self.dependencies, providers: self.registry.providers)
        self.signin = services.signin
        self.tokens = services.tokens
        self.revoker = services.revoker
        self.accounts = services.accounts
        self.notifications = services.notifications
        self.sweeper = SessionSweeper(store: store, expiry: state.expiry, lifetimes: settings.lifetimes)
        self.locks = IdentityLocks(dependencies: self.dependencies)
        self.bodyLimit = try Self.bodyLimit(of: configuration)
        self.trustedProxies = try TrustedProxies(configuration.trustedProxies ?? [])
        self.introspectionClients = try Self.introspectionClients(of: configuration)
    }
}
