import AuthlogAccounts
import AuthlogCore
import AuthlogCrypto
import AuthlogProviders
import AuthlogTesting
import Foundation
import Synchronization

/// The account rules over the in-memory stores, with the `dev` provider: no database, no socket.
struct RuleHarness {
    let stores = InMemoryStores()
    let dependencies: ServiceDependencies
    let signin: SigninService
    let tokens: TokenService
    let sweeper: SessionSweeper

    init(settings: ServiceSettings = ServiceSettings()) throws {
        let issuer = try AccessTokenIssuer(
            key: try PrivateKey.generate(for: .es256),
            issuer: "http://rules.test",
            audience: "authlog"
        )
        self.dependencies = ServiceDependencies(
            store: self.stores.events,
            state: AccountState(
                queries: self.stores.sessions,
                expiry: self.stores.sessionExpiry,
                nonces: self.stores.nonces,
                credentials: self.stores.credentials,
                emails: self.stores.emails,
                revocations: self.stores.revocations,
                notices: self.stores.notices,
                userKeys: self.stores.userKeys
            ),
            accessTokens: issuer,
            settings: settings,
            metrics: CountingMetrics(),
            dataKey: nil,
            hasher: IdentityHasher(key: Array(repeating: 7, count: 32))
        )
        self.signin = SigninService(dependencies: self.dependencies, providers: [DevelopmentProvider()])
        self.tokens = TokenService(dependencies: self.dependencies)
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
        try await self.signin.signIn(
            provider: "dev",
            proof: SigninProof(subject: subject),
            rememberMe: rememberMe,
            metadata: Self.request
        )
    }

    /// The types of the events stored so far, in order.
    var eventTypes: [EventType] { self.stores.events.events.map(\.type) }
}

/// Sign-in outcomes counted, as `/metrics` would.
final class CountingMetrics: SigninMetrics {
    private let counts = Mutex<[String: Int]>([:])

    func recordSignin(provider: String, outcome: String) {
        self.counts.withLock { $0["\(provider) \(outcome)", default: 0] += 1 }
    }
}
