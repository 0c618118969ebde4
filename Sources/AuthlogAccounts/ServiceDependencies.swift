public import AuthlogCore
public import AuthlogCrypto
import Foundation

/// What the sign-in and token services share: the event store, the state ports, the token issuer, the
/// settings and the metrics.
public struct ServiceDependencies: Sendable {
    /// The event store.
    public let store: any EventStore
    /// Request-time reads of the projections.
    public let queries: any SessionReads
    /// Single-use nonces.
    public let nonces: any NonceLedger
    /// Sealed provider credentials.
    public let credentials: any ProviderCredentialVault
    /// Verified emails as keyed hashes.
    public let emails: any EmailOwnership
    /// Grants of deleted users still to be revoked.
    public let revocations: any ProviderRevocationQueue
    /// Provider notices already acted on.
    public let notices: any ProviderNoticeClaims
    /// Each user's wrapped personal-data key.
    public let userKeys: any UserKeyRing
    /// What a signed-in user reads about their own account.
    public let ownAccount: any OwnAccountReads
    /// The identity lockout projection.
    public let lockouts: any IdentityLockouts
    /// Each user's recent sign-ins, for sign-in alerts.
    public let signinHistory: any SigninHistoryReads
    /// The DPoP proofs already accepted (each `jti` once within its lifetime).
    public let dpopProofs: any DPoPProofLedger
    /// The server's DPoP nonces, when `dpop.nonces` asks proofs to carry one.
    public let dpopNonces: DPoPNonces?
    /// Keys subject and email hashes.
    public let hasher: IdentityHasher
    /// Signs and checks access tokens.
    public let accessTokens: AccessTokenIssuer
    /// Lifetimes and limits.
    public let settings: ServiceSettings
    /// Where sign-in outcomes are counted (`/metrics`).
    public let metrics: any SigninMetrics
    /// Seals provider credentials and wraps per-user keys (AES-256-GCM); `nil` keeps no personal data.
    public let dataKey: [UInt8]?
    /// Data keys replaced by `dataKey` (`previous_data_keys`): what they sealed still opens, nothing is sealed
    /// with them.
    public let previousDataKeys: [[UInt8]]
    /// Seals personal data with per-user keys; `nil` without a data key.
    let vault: PersonalDataVault?

    /// Creates the dependencies over one event store and the state ports beside it.
    public init(
        store: any EventStore,
        state: AccountState,
        accessTokens: AccessTokenIssuer,
        settings: ServiceSettings,
        metrics: any SigninMetrics,
        dataKey: [UInt8]?,
        previousDataKeys: [[UInt8]] = [],
        hasher: IdentityHasher,
        dpopNonces: DPoPNonces? = nil
    ) {
        self.dpopProofs = state.dpopProofs
        self.dpopNonces = dpopNonces
        self.store = store
        self.queries = state.queries
        self.nonces = state.nonces
        self.credentials = state.credentials
        self.emails = state.emails
        self.revocations = state.revocations
        self.notices = state.notices
        self.userKeys = state.userKeys
        self.ownAccount = state.ownAccount
        self.lockouts = state.lockouts
        self.signinHistory = state.signinHistory
        self.hasher = hasher
        self.accessTokens = accessTokens
        self.settings = settings
        self.metrics = metrics
        self.dataKey = dataKey
        self.previousDataKeys = previousDataKeys
        self.vault = dataKey.map {
            PersonalDataVault(dataKey: $0, previousKeys: previousDataKeys, keys: state.userKeys)
        }
    }

    /// Appends one command; an unreachable database becomes 503, any other failure 500.
    @discardableResult
    public func append(_ command: AppendCommand) async throws(ServiceError) -> AppendResult {
        try await self.storeCall { try await self.store.append(command) }
    }

    /// A new access token for a session, with its id and expiry.
    func makeAccessToken(
        userID: UUID,
        sessionID: UUID,
        clientID: String?,
        dpopJKT: String? = nil,
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
                expiresAt: expiresAt,
                dpopJKT: dpopJKT
            )
        )
        return (token, id, Timestamp(microsecondsSinceEpoch: expiresAt * 1_000_000))
    }

    /// Runs a store call; an unreachable database becomes 503 (the action is not done: fail closed), any
    /// other failure 500 (``ServiceError/failure(_:)``).
    @discardableResult
    public func storeCall<T: Sendable>(_ body: () async throws -> T) async throws(ServiceError) -> T {
        do {
            return try await body()
        } catch {
            throw ServiceError.failure(error)
        }
    }
}
