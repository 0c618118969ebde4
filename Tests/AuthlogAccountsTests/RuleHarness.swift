import AuthlogAccounts
import AuthlogCore
import AuthlogCrypto
import AuthlogProviders
import AuthlogTesting
import Foundation
import Synchronization

/// The account rules over the in-memory stores, with the `dev` provider and scripted ones: no database, no socket.
struct RuleHarness {
    let stores = InMemoryStores()
    let dependencies: ServiceDependencies
    let signin: SigninService
    let tokens: TokenService
    let accounts: AccountService
    let revoker: ProviderRevoker
    let sweeper: SessionSweeper
    let apple = ScriptedProvider("apple", email: .authoritative)
    let google = ScriptedProvider("google", email: .authoritative)
    let github = ScriptedProvider("github")
    let kakao = ScriptedProvider("kakao")
    let gitlab = ScriptedProvider("gitlab")
    let firebase = ScriptedProvider("firebase")
    /// The key that seals provider credentials and personal data.
    static let dataKey: [UInt8] = Array(repeating: 9, count: 32)

    /// The settings the rule tests run with: the defaults, but without the refresh-token reuse grace window.
    /// The reuse tests present a spent token at once, which the grace would answer; `RefreshGraceTests` turns
    /// it on.
    static var settings: ServiceSettings {
        var settings = ServiceSettings()
        settings.refreshReuseGrace = 0
        return settings
    }

    init(settings: ServiceSettings = RuleHarness.settings) throws {
        let issuer = try AccessTokenIssuer(
            key: try PrivateKey.generate(for: .es256),
            issuer: "http://rules.test",
            audience: "authlog"
        )
        self.dependencies = Self.dependencies(
            over: self.stores,
            accessTokens: issuer,
            settings: settings,
            hasher: IdentityHasher(key: Array(repeating: 7, count: 32))
        )
        let providers: [any IdentityProvider] = [
            DevelopmentProvider(), self.apple, self.google, self.github, self.kakao, self.gitlab, self.firebase,
        ]
        self.signin = SigninService(dependencies: self.dependencies, providers: providers)
        self.tokens = TokenService(dependencies: self.dependencies)
        self.revoker = ProviderRevoker(dependencies: self.dependencies, providers: providers)
        self.accounts = AccountService(
            dependencies: self.dependencies,
            signin: self.signin,
            tokens: self.tokens,
            revoker: self.revoker
        )
        self.sweeper = SessionSweeper(
            store: self.stores.events,
            expiry: self.stores.sessionExpiry,
            lifetimes: settings.lifetimes
        )
    }

    /// A request's metadata.
    static var request: RequestMetadata { RequestMetadata(requestID: "rule-\(UUID())") }

    /// Signs `subject` in with the `dev` provider.
    func signIn(_ subject: String, rememberMe: Bool = true) async throws(ServiceError) -> TokenResponse {
        try await self.signIn(with: "dev", subject, rememberMe: rememberMe)
    }

    /// Signs `subject` in with `provider` (a scripted one must accept the subject first).
    func signIn(
        with provider: String,
        _ subject: String,
        rememberMe: Bool = true,
        metadata: RequestMetadata = Self.request
    ) async throws(ServiceError) -> TokenResponse {
        try await self.signin.signIn(
            provider: provider,
            proof: SigninProof(subject: subject),
            rememberMe: rememberMe,
            metadata: metadata
        )
    }

    /// Signs in with Apple as `subject` with `email`, keeping `credential` as Apple's refresh token when given.
    func signInWithApple(
        _ subject: String = "001234.apple-user",
        email: String = "a@privaterelay.appleid.com",
        credential: String? = nil
    ) async throws -> TokenResponse {
        self.apple.accept(subject, email: email, credential: credential)
        return try await self.signIn(with: "apple", subject)
    }

    /// The services' dependencies over the in-memory stores, with the harness's data key.
    static func dependencies(
        over stores: InMemoryStores,
        accessTokens: AccessTokenIssuer,
        settings: ServiceSettings,
        hasher: IdentityHasher
    ) -> ServiceDependencies {
        ServiceDependencies(
            store: stores.events,
            state: stores.accountState,
            accessTokens: accessTokens,
            settings: settings,
            metrics: CountingMetrics(),
            dataKey: Self.dataKey,
            hasher: hasher
        )
    }

    /// The harness's dependencies (same settings, keys and state) with the event store, the email port or the
    /// whole state replaced, for a request whose calls a test interleaves with another's or whose reads fail.
    func dependencies(
        store: (any EventStore)? = nil,
        emails: (any EmailOwnership)? = nil,
        state: AccountState? = nil
    ) -> ServiceDependencies {
        var state = state ?? self.stores.accountState
        if let emails { state.emails = emails }
        return ServiceDependencies(
            store: store ?? self.stores.events,
            state: state,
            accessTokens: self.dependencies.accessTokens,
            settings: self.dependencies.settings,
            metrics: CountingMetrics(),
            dataKey: Self.dataKey,
            hasher: self.dependencies.hasher
        )
    }

    /// The same rules with other settings over the same stores, as another replica configured differently would be.
    func accounts(with settings: ServiceSettings) -> AccountService {
        let dependencies = Self.dependencies(
            over: self.stores,
            accessTokens: self.dependencies.accessTokens,
            settings: settings,
            hasher: self.dependencies.hasher
        )
        return AccountService(
            dependencies: dependencies,
            signin: self.signin,
            tokens: self.tokens,
            revoker: self.revoker
        )
    }

    /// An account service for which every session's last authentication is an hour older than it is.
    var agedAccounts: AccountService {
        var settings = self.dependencies.settings
        settings.reauthenticationWindow -= 3_600
        return self.accounts(with: settings)
    }

    /// Whether `token` is a live access or refresh token, as RFC 7662 introspection says.
    func isActive(_ token: String) async throws -> Bool {
        try await self.tokens.introspect(token)["active"] == .bool(true)
    }

    /// Whether a refresh with `token` succeeds; a refused one must be refused as `invalid_grant`.
    func refreshes(_ token: String) async throws -> Bool {
        do {
            _ = try await self.tokens.refresh(token, metadata: Self.request)
            return true
        } catch  where error.code == "invalid_grant" {
            return false
        }
    }

    /// The types of the events stored so far, in order.
    var eventTypes: [EventType] { self.stores.events.events.map(\.type) }

    /// The stored events of `type`, in order.
    func events(_ type: EventType) -> [EventEnvelope] { self.stores.events.events(ofType: type) }
}

/// Sign-in outcomes counted, as `/metrics` would.
final class CountingMetrics: SigninMetrics {
    private let counts = Mutex<[String: Int]>([:])

    func recordSignin(provider: String, outcome: String) {
        self.counts.withLock { $0["\(provider) \(outcome)", default: 0] += 1 }
    }
}
