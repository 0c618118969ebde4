public import AuthlogCore
public import AuthlogProviders
import Foundation
public import Logging

/// Revokes deleted users' grants at their providers: the attempt made at deletion, and the retries with
/// backoff that `serve` runs for the ones that failed. Every attempt is a `provider.revocation_attempted`
/// event; the queue (`authlog.provider_revocations`) holds what is still to do, so a provider that is down
/// never blocks a deletion and a process that dies leaves nothing another cannot finish.
public struct ProviderRevoker: Sendable {
    let dependencies: ServiceDependencies
    let providers: [String: any GrantRevoking]

    /// Creates the revoker for the enabled providers that can revoke grants.
    public init(dependencies: ServiceDependencies, providers: [any IdentityProvider]) {
        self.dependencies = dependencies
        var revoking: [String: any GrantRevoking] = [:]
        for provider in providers {
            if let provider = provider as? any GrantRevoking { revoking[provider.name] = provider }
        }
        self.providers = revoking
    }

    /// Whether `provider` can revoke grants (Apple, GitHub, Kakao).
    func canRevoke(_ provider: String) -> Bool { self.providers[provider] != nil }

    /// Makes one attempt for `item` and says what became of it: `revoked`, `queued` (retry later) or
    /// `abandoned` (the last attempt failed, or the credential cannot be opened), with a detail for failures.
    func attempt(_ item: ProviderRevocationItem) async -> (result: ProviderRevocationResult, detail: String?) {
        let registry = IdentityRegistry(dependencies: self.dependencies)
        guard let provider = self.providers[item.provider] else { return (.abandoned, "provider not configured") }
        guard
            let opened = registry.openCredential(
                item.sealedToken,
                provider: item.provider,
                subjectHash: item.subjectHash
            )
        else { return (.abandoned, "credential cannot be opened") }
        do {
            try await provider.revokeGrant(credential: opened.credential, clientID: opened.clientID)
            return (.revoked, nil)
        } catch {
            let last = item.attempts + 1 >= self.dependencies.settings.revocationMaximumAttempts
            return (last ? .abandoned : .queued, "\(error.reason.rawValue): \(error.message)")
        }
    }

    /// When the next attempt after `attempts` failed ones is due: the retry base doubled per attempt, at most
    /// a day.
    func nextAttempt(after attempts: Int, from now: Timestamp) -> Timestamp {
        let base = self.dependencies.settings.revocationRetryBase
        let exponent = min(max(attempts - 1, 0), 16)
        return now.adding(seconds: min(base * (Int64(1) << exponent), 86_400))
    }

    /// The `provider.revocation_attempted` event of one attempt.
    func attemptEvent(
        _ item: ProviderRevocationItem,
        result: ProviderRevocationResult,
        detail: String?,
        metadata: RequestMetadata,
        at now: Timestamp
    ) throws(ServiceError) -> EventEnvelope {
        try self.dependencies.event(
            metadata,
            stream: .user(item.userID),
            outcome: result == .revoked ? .success : .failure,
            reason: result == .revoked ? nil : "provider_revocation_failed",
            provider: item.provider,
            userID: item.userID,
            at: now,
            data: ProviderRevocationAttempted(
                attempt: item.attempts + 1,
                result: result,
                detail: EnvelopeText.normalized(detail, limit: EnvelopeText.Limit.userAgent)
            )
        )
    }

    /// Retries every due revocation once (at most `limit`), recording each attempt; returns how many were
    /// attempted. Two processes never claim the same item.
    /// - Throws: ``ServiceError`` when the database is down.
    @discardableResult
    public func retryDue(limit: Int = 50, at now: Timestamp = .now()) async throws(ServiceError) -> Int {
        let due = try await self.dependencies.storeCall {
            try await self.dependencies.revocations.claimDue(limit: limit, leaseSeconds: 300, at: now)
        }
        let metadata = RequestMetadata(requestID: "revocation-retry-\(UUID.version7().lowercased)")
        for item in due {
            let (result, detail) = await self.attempt(item)
            let event = try self.attemptEvent(item, result: result, detail: detail, metadata: metadata, at: .now())
            try await self.dependencies.append(AppendCommand(event))
            try await self.dependencies.storeCall {
                try await self.dependencies.revocations.finish(
                    item,
                    result: result,
                    detail: detail,
                    nextAttemptAt: self.nextAttempt(after: item.attempts + 1, from: .now())
                )
            }
        }
        return due.count
    }

    /// Runs ``retryDue(limit:at:)`` once, logging what it did (`serve`'s background pass, every 15 s).
    public func retryOnce(logger: Logger) async {
        do {
            let attempted = try await self.retryDue()
            if attempted > 0 {
                logger.info("retried provider revocations", metadata: ["count": .stringConvertible(attempted)])
            }
        } catch {
            logger.warning("could not retry provider revocations", metadata: ["error": .string(error.code)])
        }
    }
}
