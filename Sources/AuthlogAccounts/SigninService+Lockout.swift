public import AuthlogCore

extension SigninService {
    /// Lifts the lock of an identity for an operator (`authlog users unlock`, `POST /v1/admin/identities/unlock`):
    /// records `identity.unlocked` with cause `operator` and `actor`, which also forgets the identity's counted
    /// failures and back-off. Returns `false`, recording nothing, when the identity is not locked (a lock that
    /// ran out is recorded as expired then).
    /// - Parameters:
    ///   - provider: the provider name, as in the events (1–64 bytes).
    ///   - subjectHash: the keyed subject hash, as in `signin.failed` and `identity.locked` (64 lowercase hex).
    ///   - actor: who lifts it: `key:NAME` or `os:USER@HOST`.
    ///   - metadata: the request's columns for the event.
    /// - Returns: whether a lock in force was lifted.
    /// - Throws: ``ServiceError`` 400 `invalid_request` for a malformed provider or hash, 503/500 from the store.
    public func unlockIdentity(
        provider: String,
        subjectHash: String,
        actor: String,
        metadata: RequestMetadata
    ) async throws(ServiceError) -> Bool {
        try await IdentityLocks(dependencies: self.dependencies)
            .unlock(provider: provider, subjectHash: subjectHash, actor: actor, metadata: metadata)
    }

    /// The lockout state of an identity now (for operators and tests).
    /// - Throws: ``ServiceError`` 503/500 from the store.
    public func lockout(provider: String, subjectHash: String) async throws(ServiceError) -> IdentityLockout {
        try await IdentityLocks(dependencies: self.dependencies).state(
            provider: provider,
            subjectHash: subjectHash,
            at: .now()
        )
    }
}
