public import AuthlogCore
public import Foundation

/// Deletes an account (App Store Review Guideline 5.1.1(v); GDPR Art. 17):
///
/// 1. the grants the user gave authlog's apps are queued for revocation (Apple refresh token, GitHub access
///    token, Kakao user id, each sealed) and tried once at once — a provider that fails or is down does not
///    block the deletion: its revocation stays queued and ``ProviderRevoker`` retries it with backoff;
/// 2. one command records `session.revoked` (`account_deleted`) for every active session, each attempt
///    (`provider.revocation_attempted`) and `account.deleted` with the per-provider results; its projection
///    changes mark the user deleted, end every session and token family, and release the identities, so the
///    same provider account signing in again gets a new user under the next subject-hash generation;
/// 3. before that command, the user's data key, verified-email hashes and stored credentials are destroyed, so
///    no failure leaves personal data readable: sealed personal data in past events can no longer be read
///    (read paths show `[erased]`) while `verify` still passes.
public struct AccountDeletion: Sendable {
    let dependencies: ServiceDependencies
    let revoker: ProviderRevoker

    /// Deletes `userID`; `requestedBy` is `user` or `apple_notification`. Returns the per-provider results.
    /// - Throws: ``ServiceError`` 503 when the database is down: the account is not deleted then (its personal
    ///   data may already be erased, which is what was asked), and the same call again completes it.
    public func delete(
        userID: UUID,
        requestedBy: String,
        metadata: RequestMetadata
    ) async throws(ServiceError) -> [String: ProviderRevocationResult] {
        let identities = try await self.dependencies.storeCall {
            try await self.dependencies.queries.identities(of: userID)
        }
        let revocation = try await self.revocationItems(of: identities, userID: userID)
        let items = revocation.items
        var results = revocation.results
        // Queued first (held back from the retry worker while this attempt runs), so no grant is forgotten if
        // this process dies; the worker only takes items of users whose deletion committed.
        let now = Timestamp.now()
        try await self.dependencies.storeCall {
            try await self.dependencies.revocations.enqueue(items, dueAt: now.adding(seconds: 300), at: now)
        }
        // What only the account needs goes before the deletion is recorded, so that a failure after this point
        // never leaves personal data readable: the data key, the email hashes, the credentials (the queue holds
        // its own sealed copies).
        try await self.erasePersonalData(of: userID, identities: identities)
        var attempts: [(item: ProviderRevocationItem, result: ProviderRevocationResult, detail: String?)] = []
        for item in items {
            let (result, detail) = await self.revoker.attempt(item)
            attempts.append((item, result, detail))
            results[item.provider] = Self.combined(results[item.provider], result)
        }
        try await self.recordDeletion(
            userID: userID,
            attempts: attempts,
            results: results,
            requestedBy: requestedBy,
            metadata: metadata
        )
        for attempt in attempts {
            // When this fails the item stays pending and the retry worker makes one more (recorded) attempt.
            try? await self.dependencies.revocations.finish(
                attempt.item,
                result: attempt.result,
                detail: attempt.detail,
                nextAttemptAt: self.revoker.nextAttempt(after: 1, from: .now())
            )
        }
        return results
    }

    /// What deleting the user revokes at its providers: an item for each identity whose provider can revoke and
    /// whose credential is kept, and every provider's result so far (`none` until an attempt says otherwise).
    private func revocationItems(
        of identities: [IdentityRecord],
        userID: UUID
    ) async throws(ServiceError) -> (items: [ProviderRevocationItem], results: [String: ProviderRevocationResult]) {
        var items: [ProviderRevocationItem] = []
        var results: [String: ProviderRevocationResult] = [:]
        for identity in identities {
            results[identity.provider] = results[identity.provider] ?? ProviderRevocationResult.none
            guard self.revoker.canRevoke(identity.provider) else { continue }
            let sealed = try await self.dependencies.storeCall {
                try await self.dependencies.credentials.sealed(
                    provider: identity.provider,
                    subjectHash: identity.subjectHash
                )
            }
            if let sealed {
                items.append(
                    ProviderRevocationItem(
                        userID: userID,
                        provider: identity.provider,
                        subjectHash: identity.subjectHash,
                        sealedToken: sealed
                    )
                )
            }
        }
        return (items, results)
    }

    /// Destroys the user's data key and forgets its email hashes and its identities' credentials.
    private func erasePersonalData(of userID: UUID, identities: [IdentityRecord]) async throws(ServiceError) {
        try await self.dependencies.storeCall {
            try await self.dependencies.userKeys.destroy(for: userID)
            try await self.dependencies.emails.forgetAll(userID: userID)
            for identity in identities {
                try await self.dependencies.credentials.forget(
                    provider: identity.provider,
                    subjectHash: identity.subjectHash
                )
            }
        }
    }

    /// One command: `session.revoked` for each active session, the attempts, `account.deleted`.
    private func recordDeletion(
        userID: UUID,
        attempts: [(item: ProviderRevocationItem, result: ProviderRevocationResult, detail: String?)],
        results: [String: ProviderRevocationResult],
        requestedBy: String,
        metadata: RequestMetadata
    ) async throws(ServiceError) {
        let now = Timestamp.now()
        var events: [EventEnvelope] = []
        for attempt in attempts {
            events.append(
                try self.revoker.attemptEvent(
                    attempt.item,
                    result: attempt.result,
                    detail: attempt.detail,
                    metadata: metadata,
                    at: now
                )
            )
        }
        events.append(
            try self.dependencies.event(
                metadata,
                stream: .user(userID),
                userID: userID,
                at: now,
                data: AccountDeleted(providerRevocations: results, requestedBy: requestedBy)
            )
        )
        try await SessionEnder(dependencies: self.dependencies).endSessions(
            of: userID,
            provider: nil,
            reason: .accountDeleted,
            extra: events,
            metadata: metadata
        )
    }

    /// The result of a provider with several identities: revoked only when every one was.
    private static func combined(
        _ current: ProviderRevocationResult?,
        _ new: ProviderRevocationResult
    ) -> ProviderRevocationResult {
        guard let current, current != ProviderRevocationResult.none else { return new }
        return current == .revoked ? new : current
    }
}
