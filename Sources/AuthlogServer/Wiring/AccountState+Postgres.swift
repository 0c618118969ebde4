public import AuthlogAccounts
public import AuthlogPostgres
import AuthlogStore

extension AccountState {
    /// Every state port on PostgreSQL, over `pool`.
    public static func postgres(pool: ConnectionPool) -> AccountState {
        AccountState(
            queries: SessionQueries(pool: pool),
            expiry: SessionExpiryQueries(pool: pool),
            nonces: NonceStore(pool: pool),
            credentials: ProviderCredentialStore(pool: pool),
            emails: UserEmailStore(pool: pool),
            revocations: RevocationQueue(pool: pool),
            notices: ProviderNoticeStore(pool: pool),
            userKeys: UserKeyStore(pool: pool),
            ownAccount: OwnAccountQueries(pool: pool),
            lockouts: IdentityLockoutQueries(pool: pool),
            signinHistory: SigninHistoryQueries(pool: pool),
            dpopProofs: DPoPProofStore(pool: pool)
        )
    }
}

extension ServerMetrics: SigninMetrics {}
