import AuthlogCore

/// One `identity_lockouts` row in memory.
struct IdentityLockoutRow: Sendable {
    /// The newest counted failures, oldest first, at most ``IdentityLockout/keptFailures``.
    var recentFailures: [Timestamp] = []
    var level = 0
    var lockedAt: Timestamp?
    var lockedUntil: Timestamp?
    var unlockedAt: Timestamp?
}

extension InMemoryProjections {
    /// Applies an `identity_lockouts` change as AuthlogStore's `ProjectionWriter.lockoutStatement` does.
    mutating func applyToIdentityLockouts(_ change: ProjectionChange) {
        switch change {
        case .countIdentityFailure(let provider, let subjectHash, let at):
            let key = IdentityKey(provider: provider, subjectHash: subjectHash)
            var row = self.identityLockouts[key] ?? IdentityLockoutRow()
            row.recentFailures.append(at)
            row.recentFailures = Array(row.recentFailures.suffix(IdentityLockout.keptFailures))
            self.identityLockouts[key] = row
        case .clearIdentityFailures(let provider, let subjectHash):
            let key = IdentityKey(provider: provider, subjectHash: subjectHash)
            guard self.identityLockouts[key]?.recentFailures.isEmpty == false else { return }
            self.identityLockouts[key]?.recentFailures = []
        case .lockIdentity(let provider, let subjectHash, let level, let at, let until):
            let key = IdentityKey(provider: provider, subjectHash: subjectHash)
            var row = self.identityLockouts[key] ?? IdentityLockoutRow()
            row.level = level
            row.lockedAt = at
            row.lockedUntil = until
            row.unlockedAt = nil
            self.identityLockouts[key] = row
        case .unlockIdentity(let provider, let subjectHash, let byOperator, let at):
            let key = IdentityKey(provider: provider, subjectHash: subjectHash)
            guard var row = self.identityLockouts[key], row.lockedAt != nil, row.unlockedAt == nil else { return }
            row.unlockedAt = at
            if byOperator {
                row.recentFailures = []
                row.level = 0
                row.lockedAt = nil
                row.lockedUntil = nil
            }
            self.identityLockouts[key] = row
        default:
            break
        }
    }

    /// The lockout state of one identity, counting failures at or after `since`.
    func lockout(provider: String, subjectHash: String, failuresSince since: Timestamp) -> IdentityLockout {
        guard let row = self.identityLockouts[IdentityKey(provider: provider, subjectHash: subjectHash)] else {
            return IdentityLockout()
        }
        return IdentityLockout(
            recentFailures: row.recentFailures.filter { $0 >= since }.count,
            level: row.level,
            lockedAt: row.lockedAt,
            lockedUntil: row.lockedUntil,
            isLockRecorded: row.lockedAt != nil && row.unlockedAt == nil
        )
    }
}
