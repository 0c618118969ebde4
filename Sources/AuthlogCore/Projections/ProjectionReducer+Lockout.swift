extension ProjectionReducer {
    /// The `identity_lockouts` changes of `signin.failed`, `identity.locked` and `identity.unlocked`.
    ///
    /// A `signin.failed` counts against its identity only when it names the subject hash, which authlog
    /// records only once the provider vouched for the subject (signature, issuer, audience good). A refusal
    /// because the identity is locked already is not counted: a user retrying during a lock does not make it
    /// longer.
    static func lockoutChanges(
        for envelope: EventEnvelope,
        payload: () throws -> any EventPayload
    ) throws
        -> [ProjectionChange]
    {
        guard let provider = envelope.provider else { return [] }
        let at = envelope.occurredAt
        switch try payload() {
        case let failed as SigninFailed:
            guard let subjectHash = failed.subjectHash,
                failed.reason != SigninFailureReason.identityLocked.rawValue
            else { return [] }
            return [.countIdentityFailure(provider: provider, subjectHash: subjectHash, at: at)]
        case let locked as IdentityLocked:
            guard let until = Timestamp(iso8601: locked.lockedUntil) else { return [] }
            return [
                .lockIdentity(
                    provider: provider,
                    subjectHash: locked.subjectHash,
                    level: locked.level,
                    at: at,
                    until: until
                )
            ]
        case let unlocked as IdentityUnlocked:
            return [
                .unlockIdentity(
                    provider: provider,
                    subjectHash: unlocked.subjectHash,
                    byOperator: unlocked.cause == .operator,
                    at: at
                )
            ]
        default:
            return []
        }
    }
}
