import AuthlogCore
import AuthlogCrypto
public import AuthlogStore
import Foundation

/// What the sign-in and token services share: the store, the request-time queries, the token issuer,
/// the settings and the metrics.
public struct ServiceDependencies: Sendable {
    public let store: EventStore
    public let queries: SessionQueries
    public let nonces: NonceStore
    public let credentials: ProviderCredentialStore
    public let accessTokens: AccessTokenIssuer
    public let settings: ServiceSettings
    public let metrics: ServerMetrics
    /// Seals provider credentials and wraps per-user keys (AES-256-GCM); `nil` keeps no personal data.
    public let dataKey: [UInt8]?
    /// Seals personal data with per-user keys; `nil` without a data key.
    let vault: PersonalDataVault?

    /// Creates the dependencies over one store.
    public init(
        store: EventStore, accessTokens: AccessTokenIssuer, settings: ServiceSettings, metrics: ServerMetrics,
        dataKey: [UInt8]?
    ) {
        self.store = store
        self.queries = SessionQueries(pool: store.pool)
        self.nonces = NonceStore(pool: store.pool)
        self.credentials = ProviderCredentialStore(pool: store.pool)
        self.accessTokens = accessTokens
        self.settings = settings
        self.metrics = metrics
        self.dataKey = dataKey
        self.vault = dataKey.map { PersonalDataVault(dataKey: $0, keys: UserKeyStore(pool: store.pool)) }
    }

    /// A new access token for a session, with its id and expiry.
    func makeAccessToken(userID: UUID, sessionID: UUID, clientID: String?, now: Timestamp) throws
        -> (token: String, id: UUID, expiresAt: Timestamp)
    {
        let id = UUID.version7(at: now)
        let issuedAt = now.microsecondsSinceEpoch / 1_000_000
        let expiresAt = issuedAt + self.settings.accessTokenLifetime
        let token = try self.accessTokens.sign(
            AccessTokenClaims(
                tokenID: id, userID: userID, sessionID: sessionID, clientID: clientID, issuedAt: issuedAt,
                expiresAt: expiresAt))
        return (token, id, Timestamp(microsecondsSinceEpoch: expiresAt * 1_000_000))
    }

    /// Runs a store call; an unreachable database becomes 503 (the action is not done: fail closed).
    @discardableResult
    func storeCall<T: Sendable>(_ body: () async throws -> T) async throws(ServiceError) -> T {
        do {
            return try await body()
        } catch let error as ServiceError {
            throw error
        } catch {
            throw ServiceError.databaseUnavailable
        }
    }
}
