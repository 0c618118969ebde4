import AuthlogCore
import AuthlogCrypto
public import AuthlogStore
import Foundation

/// What the sign-in and token services share: the store, the request-time queries, the token issuer,
/// the settings and the metrics.
public struct ServiceDependencies: Sendable {
    /// The event store.
    public let store: PostgresEventStore
    /// Request-time reads of the projections.
    public let queries: SessionQueries
    /// Single-use nonces.
    public let nonces: NonceStore
    /// Sealed provider credentials.
    public let credentials: ProviderCredentialStore
    /// Verified emails as keyed hashes.
    public let emails: UserEmailStore
    /// Grants of deleted users still to be revoked.
    public let revocations: RevocationQueue
    /// Provider notices already acted on.
    public let notices: ProviderNoticeStore
    /// Each user's wrapped personal-data key.
    public let userKeys: UserKeyStore
    /// Keys subject and email hashes.
    public let hasher: IdentityHasher
    /// Signs and checks access tokens.
    public let accessTokens: AccessTokenIssuer
    /// Lifetimes and limits.
    public let settings: ServiceSettings
    /// What `/metrics` reports.
    public let metrics: ServerMetrics
    /// Seals provider credentials and wraps per-user keys (AES-256-GCM); `nil` keeps no personal data.
    public let dataKey: [UInt8]?
    /// Seals personal data with per-user keys; `nil` without a data key.
    let vault: PersonalDataVault?

    /// Creates the dependencies over one store.
    public init(
        store: PostgresEventStore,
        accessTokens: AccessTokenIssuer,
        settings: ServiceSettings,
        metrics: ServerMetrics,
        dataKey: [UInt8]?,
        hasher: IdentityHasher
    ) {
        self.store = store
        self.queries = SessionQueries(pool: store.pool)
        self.nonces = NonceStore(pool: store.pool)
        self.credentials = ProviderCredentialStore(pool: store.pool)
        self.emails = UserEmailStore(pool: store.pool)
        self.revocations = RevocationQueue(pool: store.pool)
        self.notices = ProviderNoticeStore(pool: store.pool)
        self.userKeys = UserKeyStore(pool: store.pool)
        self.hasher = hasher
        self.accessTokens = accessTokens
        self.settings = settings
        self.metrics = metrics
        self.dataKey = dataKey
        self.vault = dataKey.map { PersonalDataVault(dataKey: $0, keys: UserKeyStore(pool: store.pool)) }
    }

    /// Appends one command; an unreachable database becomes 503, any other failure 500.
    @discardableResult
    func append(_ command: AppendCommand) async throws(ServiceError) -> AppendResult {
        try await self.storeCall { try await self.store.append(command) }
    }

    /// A new access token for a session, with its id and expiry.
    func makeAccessToken(
        userID: UUID,
        sessionID: UUID,
        clientID: String?,
        now: Timestamp
    ) throws
        -> (token: String, id: UUID, expiresAt: Timestamp)
    {
        let id = UUID.version7(at: now)
        let issuedAt = now.microsecondsSinceEpoch / 1_000_000
        let expiresAt = issuedAt + self.settings.accessTokenLifetime
        let token = try self.accessTokens.sign(
            AccessTokenClaims(
                tokenID: id,
                userID: userID,
                sessionID: sessionID,
                clientID: clientID,
                issuedAt: issuedAt,
                expiresAt: expiresAt
            )
        )
        return (token, id, Timestamp(microsecondsSinceEpoch: expiresAt * 1_000_000))
    }

    /// Runs a store call; an unreachable database becomes 503 (the action is not done: fail closed), any
    /// other failure 500 (``ServiceError/failure(_:)``).
    @discardableResult
    func storeCall<T: Sendable>(_ body: () async throws -> T) async throws(ServiceError) -> T {
        do {
            return try await body()
        } catch {
            throw ServiceError.failure(error)
        }
    }
}
