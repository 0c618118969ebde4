public import AuthlogCore

/// ``IdentityLockouts`` over the in-memory projections, with the semantics of AuthlogStore's
/// `IdentityLockoutQueries`.
public struct InMemoryIdentityLockouts: IdentityLockouts {
    let storage: InMemoryStorage

    /// The lockout state of `provider`/`subjectHash`, counting the failures at or after `since`.
    public func lockout(
        provider: String,
        subjectHash: String,
        failuresSince since: Timestamp
    ) async throws -> IdentityLockout {
        self.storage.withState { state in
            var lockout = state.projections.lockout(provider: provider, subjectHash: subjectHash, failuresSince: since)
            lockout.streamVersion = state.log.version(
                of: IdentityLockout.streamName(provider: provider, subjectHash: subjectHash).rawValue
            )
            return lockout
        }
    }
}
