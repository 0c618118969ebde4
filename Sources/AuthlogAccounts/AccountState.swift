public import AuthlogCore

/// The state the rules keep besides the event log, one port per table: PostgreSQL in `serve`
/// (`AccountState.postgres` in AuthlogServer), memory in rule tests (AuthlogTesting).
public struct AccountState: Sendable {
    /// Request-time reads of the projections.
    public var queries: any SessionReads
    /// The active sessions past a lifetime.
    public var expiry: any SessionExpiryReads
    /// Single-use nonces.
    public var nonces: any NonceLedger
    /// Sealed provider credentials.
    public var credentials: any ProviderCredentialVault
    /// Verified emails as keyed hashes.
    public var emails: any EmailOwnership
    /// Grants of deleted users still to be revoked.
    public var revocations: any ProviderRevocationQueue
    /// Provider notices already acted on.
    public var notices: any ProviderNoticeClaims
    /// Each user's wrapped personal-data key.
    public var userKeys: any UserKeyRing
    /// What a signed-in user reads about their own account: sessions and activity.
    public var ownAccount: any OwnAccountReads
    /// The identity lockout projection.
    public var lockouts: any IdentityLockouts
    /// Each user's recent sign-ins, for sign-in alerts.
    public var signinHistory: any SigninHistoryReads
    /// The DPoP proofs already accepted.
    public var dpopProofs: any DPoPProofLedger

    /// Creates the set of ports.
    public init(
        queries: any SessionReads,
        expiry: any SessionExpiryReads,
        nonces: any NonceLedger,
        credentials: any ProviderCredentialVault,
        emails: any EmailOwnership,
        revocations: any ProviderRevocationQueue,
        notices: any ProviderNoticeClaims,
        userKeys: any UserKeyRing,
        ownAccount: any OwnAccountReads,
        lockouts: any IdentityLockouts,
        signinHistory: any SigninHistoryReads,
        dpopProofs: any DPoPProofLedger
    ) {
        self.dpopProofs = dpopProofs
        self.queries = queries
        self.expiry = expiry
        self.nonces = nonces
        self.credentials = credentials
        self.emails = emails
        self.revocations = revocations
        self.notices = notices
        self.userKeys = userKeys
        self.ownAccount = ownAccount
        self.lockouts = lockouts
        self.signinHistory = signinHistory
    }
}

/// Where the rules count sign-in outcomes (`authlog_signins_total` in `/metrics`).
public protocol SigninMetrics: Sendable {
    /// Counts one sign-in of `provider` with `outcome` (`success` or `failure`).
    func recordSignin(provider: String, outcome: String)
    /// Counts one judgement of a sign-in judged unusual (`authlog_signin_judgements_total`): its kind and what
    /// was done with the sign-in.
    func recordSigninJudgement(kind: String, decision: String)
}

extension SigninMetrics {
    /// Counts nothing: for metrics that do not count judgements.
    public func recordSigninJudgement(kind: String, decision: String) {}
}
