public import AuthlogCore
import AuthlogProviders
import Foundation
public import Logging

/// The identity lockout's decisions (``LockoutPolicy``), over the `identity_lockouts` projection that every
/// `authlog serve` on the database shares.
///
/// A failed proof is recorded first (`signin.failed` with the subject hash; the projection counts it in the
/// same transaction), and only then is the count read: of two processes recording failures at once, the one
/// that commits last sees both, so a lock is never lost. Locks and unlocks go to the identity's stream
/// (`identity-<provider>:<subject_hash>`) with its expected version, so two processes that both see the
/// limit reached record one lock, not two. A lock's expiry (`identity.unlocked`, cause `expired`) is recorded
/// by whichever comes first after `locked_until`: the identity's next sign-in, failure or lock, in the same
/// command, or ``recordExpiries(at:batchSize:)``, which `serve` runs every minute.
public struct IdentityLocks: Sendable {
    private let store: any EventStore
    private let lockouts: any IdentityLockouts
    /// When identities are locked.
    public let policy: LockoutPolicy
    private let maximumAttempts: Int

    /// Creates the decisions over an event store and the lockout projection beside it (`authlog users unlock`).
    public init(store: any EventStore, lockouts: any IdentityLockouts, policy: LockoutPolicy, maximumAttempts: Int = 6)
    {
        self.store = store
        self.lockouts = lockouts
        self.policy = policy
        self.maximumAttempts = maximumAttempts
    }

    /// The decisions over the services' store, projection and settings.
    public init(dependencies: ServiceDependencies) {
        self.init(
            store: dependencies.store,
            lockouts: dependencies.lockouts,
            policy: dependencies.settings.lockout,
            maximumAttempts: dependencies.settings.maximumAttempts
        )
    }

    /// The answer a locked identity's sign-in gets: exactly the answer to a proof whose signature does not
    /// verify (status, body and headers), so that an attacker cannot tell a locked identity from a wrong
    /// proof. Only the log tells (`signin.failed` with reason `identity_locked`).
    public static let lockedAnswer = SigninService.answer(
        for: ProviderError(.invalidSignature, "the signature does not verify")
    )

    /// The lockout state of one identity, its failures counted within the window ending at `now`.
    /// - Throws: ``ServiceError`` 503/500 from the store.
    func state(provider: String, subjectHash: String, at now: Timestamp) async throws(ServiceError) -> IdentityLockout {
        do {
            return try await self.lockouts.lockout(
                provider: provider,
                subjectHash: subjectHash,
                failuresSince: self.policy.windowStart(at: now)
            )
        } catch {
            throw ServiceError.failure(error)
        }
    }

    /// `identity.unlocked` with cause `expired`, when `state` holds a lock that ran out by `now` and was not
    /// recorded as lifted yet; otherwise nothing.
    /// - Throws: ``ServiceError`` 500 when the event cannot be made.
    func expiryEvents(
        of state: IdentityLockout,
        provider: String,
        subjectHash: String,
        metadata: RequestMetadata,
        at now: Timestamp
    ) throws(ServiceError) -> [EventEnvelope] {
        guard state.hasExpiredUnrecorded(at: now) else { return [] }
        return [
            try self.event(
                metadata,
                stream: IdentityLockout.streamName(provider: provider, subjectHash: subjectHash),
                provider: provider,
                at: now,
                data: IdentityUnlocked(subjectHash: subjectHash, cause: .expired)
            )
        ]
    }

    /// Decides after a counted failure of `provider`/`subjectHash` was recorded: locks the identity when its
    /// failures within the window reached the limit (and records a run-out lock's expiry). A failure to
    /// decide is left for the next counted failure, which decides again over the same counts.
    func afterCountedFailure(provider: String, subjectHash: String, metadata: RequestMetadata) async {
        guard self.policy.isEnabled else { return }
        for _ in 0..<self.maximumAttempts {
            do {
                let now = Timestamp.now()
                let state = try await self.state(provider: provider, subjectHash: subjectHash, at: now)
                if state.isLocked(at: now) { return }
                var events = try self.expiryEvents(
                    of: state,
                    provider: provider,
                    subjectHash: subjectHash,
                    metadata: metadata,
                    at: now
                )
                if self.policy.trips(state) {
                    events.append(try self.lockEvent(after: state, provider, subjectHash, metadata, at: now))
                }
                guard !events.isEmpty else { return }
                try await self.append(events, provider: provider, subjectHash: subjectHash, expecting: state)
                return
            } catch is WrongExpectedVersion {
                continue
            } catch {
                return
            }
        }
    }

    /// Records `identity.unlocked` with cause `expired` for every recorded lock that ran out by `now`,
    /// `batchSize` at a time, until none is left; returns how many this call recorded. Each append expects the
    /// identity stream's version it read, so with several processes sweeping (or a sign-in recording the same
    /// expiry) each expiry is recorded once.
    /// - Throws: the store's error when the database fails.
    @discardableResult
    public func recordExpiries(at now: Timestamp = .now(), batchSize: Int = 500) async throws -> Int {
        var recorded = 0
        let metadata = RequestMetadata(requestID: "lock-expiry-\(UUID.version7().lowercased)")
        while true {
            let due = try await self.lockouts.expiredLocks(at: now, limit: batchSize)
            guard !due.isEmpty else { return recorded }
            var commands: [AppendCommand] = []
            for lock in due {
                let stream = IdentityLockout.streamName(provider: lock.provider, subjectHash: lock.subjectHash)
                let event = try metadata.envelope(
                    stream: stream,
                    provider: lock.provider,
                    at: now,
                    data: IdentityUnlocked(subjectHash: lock.subjectHash, cause: .expired)
                )
                commands.append(AppendCommand(event, expecting: .exactly(lock.streamVersion)))
            }
            let succeeded = await self.store.appendEach(commands).filter { (try? $0.get()) != nil }.count
            recorded += succeeded
            // A batch in which every command lost its race would be found again: stop rather than spin.
            if succeeded == 0 || due.count < batchSize { return recorded }
        }
    }

    /// Runs ``recordExpiries(at:batchSize:)`` once, logging what it did (`serve`'s background pass, every
    /// minute).
    public func recordExpiriesOnce(logger: Logger) async {
        do {
            let recorded = try await self.recordExpiries()
            if recorded > 0 { logger.info("recorded expired locks", metadata: ["count": "\(recorded)"]) }
        } catch {
            logger.warning("could not record expired locks", metadata: ["error": "\(error)"])
        }
    }

    /// Lifts the lock of `provider`/`subjectHash` for an operator (`actor`: `key:NAME`, `os:USER@HOST`).
    /// Returns whether a lock in force was lifted: an identity that is not locked records nothing (a lock that
    /// ran out records its expiry, with cause `expired`).
    /// - Throws: ``ServiceError`` 400 `invalid_request` for a malformed provider or hash, 503/500 from the store.
    public func unlock(
        provider: String,
        subjectHash: String,
        actor: String,
        metadata: RequestMetadata
    ) async throws(ServiceError) -> Bool {
        guard Self.isProviderName(provider) else {
            throw ServiceError.badRequest(
                "provider must be a provider name of 1 to 64 letters, digits, '-', '_' or '.'."
            )
        }
        guard Self.isSubjectHash(subjectHash) else {
            throw ServiceError.badRequest("subject_hash must be 64 lowercase hexadecimal digits.")
        }
        for _ in 0..<self.maximumAttempts {
            let now = Timestamp.now()
            let state = try await self.state(provider: provider, subjectHash: subjectHash, at: now)
            let events: [EventEnvelope]
            if state.isLocked(at: now) {
                events = [
                    try self.event(
                        metadata,
                        stream: IdentityLockout.streamName(provider: provider, subjectHash: subjectHash),
                        provider: provider,
                        at: now,
                        data: IdentityUnlocked(subjectHash: subjectHash, cause: .operator, actor: actor)
                    )
                ]
            } else {
                events = try self.expiryEvents(
                    of: state,
                    provider: provider,
                    subjectHash: subjectHash,
                    metadata: metadata,
                    at: now
                )
                if events.isEmpty { return false }
            }
            do {
                try await self.append(events, provider: provider, subjectHash: subjectHash, expecting: state)
            } catch is WrongExpectedVersion {
                continue
            } catch {
                throw ServiceError.failure(error)
            }
            return state.isLocked(at: now)
        }
        throw ServiceError(.conflict, "conflict", "The unlock collided with another change of the identity; try again.")
    }

    private func lockEvent(
        after state: IdentityLockout,
        _ provider: String,
        _ subjectHash: String,
        _ metadata: RequestMetadata,
        at now: Timestamp
    ) throws(ServiceError) -> EventEnvelope {
        let level = self.policy.nextLevel(after: state, at: now)
        let until = now.adding(seconds: self.policy.lockSeconds(level: level))
        return try self.event(
            metadata,
            stream: IdentityLockout.streamName(provider: provider, subjectHash: subjectHash),
            outcome: .failure,
            reason: IdentityLockReason.tooManyFailures.rawValue,
            provider: provider,
            at: now,
            data: IdentityLocked(
                subjectHash: subjectHash,
                failures: state.recentFailures,
                windowSeconds: Int(self.policy.windowSeconds),
                level: level,
                lockedUntil: until.description
            )
        )
    }

    private func event<Payload: EventPayload>(
        _ metadata: RequestMetadata,
        stream: StreamName,
        outcome: Outcome = .success,
        reason: String? = nil,
        provider: String,
        at now: Timestamp,
        data: Payload
    ) throws(ServiceError) -> EventEnvelope {
        do {
            return try metadata.envelope(
                stream: stream,
                outcome: outcome,
                reason: reason,
                provider: provider,
                at: now,
                data: data
            )
        } catch {
            throw ServiceError(.internalServerError, "internal_error", "The event could not be made.")
        }
    }

    private func append(
        _ events: [EventEnvelope],
        provider: String,
        subjectHash: String,
        expecting state: IdentityLockout
    ) async throws {
        let stream = IdentityLockout.streamName(provider: provider, subjectHash: subjectHash)
        try await self.store.append(
            AppendCommand(events: events, expectedVersions: [stream: .exactly(state.streamVersion)])
        )
    }

    /// Whether `text` can be a provider name: 1–64 ASCII letters, digits, `-`, `_` or `.`.
    public static func isProviderName(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count)
            && text.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || byte == 0x2D || byte == 0x5F || byte == 0x2E
            }
    }

    /// Whether `text` is a keyed subject hash: 64 lowercase hexadecimal digits.
    public static func isSubjectHash(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }
}
