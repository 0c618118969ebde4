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

    /// At most `limit` recorded locks that ran out by `now` without their `identity.unlocked`, the longest run
    /// out first.
    public func expiredLocks(at now: Timestamp, limit: Int) async throws -> [ExpiredLock] {
        self.storage.withState { state in
            state.projections.identityLockouts
                .compactMap { key, row -> (until: Timestamp, lock: ExpiredLock)? in
                    guard row.lockedAt != nil, row.unlockedAt == nil, let until = row.lockedUntil, until <= now
                    else { return nil }
                    let stream = IdentityLockout.streamName(provider: key.provider, subjectHash: key.subjectHash)
                    let lock = ExpiredLock(
                        provider: key.provider,
                        subjectHash: key.subjectHash,
                        streamVersion: state.log.version(of: stream.rawValue)
                    )
                    return (until, lock)
                }
                .sorted {
                    ($0.until, $0.lock.provider, $0.lock.subjectHash) < (
                        $1.until, $1.lock.provider, $1.lock.subjectHash
                    )
                }
                .prefix(max(limit, 0))
                .map(\.lock)
        }
    }
}
