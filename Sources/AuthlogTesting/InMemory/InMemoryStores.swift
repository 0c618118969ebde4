/// An in-memory event store and every account-state port over one shared state, as the PostgreSQL store
/// and its port structs share one database: what an append projects is what the ports read.
public struct InMemoryStores: Sendable {
    /// The event log and its projections.
    public let events: InMemoryEventStore
    /// Request-time reads of the projections.
    public let sessions: InMemorySessionReads
    /// The sweeper's read of sessions past a lifetime.
    public let sessionExpiry: InMemorySessionExpiryReads
    /// Single-use nonces.
    public let nonces: InMemoryNonceLedger
    /// DPoP proofs already accepted.
    public let dpopProofs: InMemoryDPoPProofLedger
    /// Sealed provider credentials.
    public let credentials: InMemoryProviderCredentialVault
    /// Verified emails as keyed hashes.
    public let emails: InMemoryEmailOwnership
    /// Grants of deleted users still to be revoked.
    public let revocations: InMemoryProviderRevocationQueue
    /// Provider notices already acted on.
    public let notices: InMemoryProviderNoticeClaims
    /// Users' wrapped personal-data keys.
    public let userKeys: InMemoryUserKeyRing
    /// A user's own sessions and activity.
    public let ownAccount: InMemoryOwnAccountReads
    /// The identity lockout projection.
    public let lockouts: InMemoryIdentityLockouts

    /// Creates empty stores over one new shared state.
    public init() {
        let storage = InMemoryStorage()
        self.events = InMemoryEventStore(storage: storage)
        self.sessions = InMemorySessionReads(storage: storage)
        self.sessionExpiry = InMemorySessionExpiryReads(storage: storage)
        self.nonces = InMemoryNonceLedger(storage: storage)
        self.dpopProofs = InMemoryDPoPProofLedger(storage: storage)
        self.credentials = InMemoryProviderCredentialVault(storage: storage)
        self.emails = InMemoryEmailOwnership(storage: storage)
        self.revocations = InMemoryProviderRevocationQueue(storage: storage)
        self.notices = InMemoryProviderNoticeClaims(storage: storage)
        self.userKeys = InMemoryUserKeyRing(storage: storage)
        self.ownAccount = InMemoryOwnAccountReads(storage: storage)
        self.lockouts = InMemoryIdentityLockouts(storage: storage)
    }
}
