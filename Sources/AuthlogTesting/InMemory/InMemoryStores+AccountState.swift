public import AuthlogAccounts

extension InMemoryStores {
    /// Every state port the account rules use, over these stores.
    public var accountState: AccountState {
        AccountState(
            queries: self.sessions,
            expiry: self.sessionExpiry,
            nonces: self.nonces,
            credentials: self.credentials,
            emails: self.emails,
            revocations: self.revocations,
            notices: self.notices,
            userKeys: self.userKeys,
            ownAccount: self.ownAccount,
            lockouts: self.lockouts,
            signinHistory: InMemorySigninHistory(storage: self.ownAccount.storage),
            dpopProofs: self.dpopProofs
        )
    }
}
