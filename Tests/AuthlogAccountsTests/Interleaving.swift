import AuthlogCore
import Foundation
import Synchronization

/// Another request's whole run, made to happen at one chosen moment of a request under test: the first time a
/// wrapped port is called. On a loaded server two concurrent requests interleave there now and then; a rule
/// test makes it happen every time.
final class Interleaving: Sendable {
    private let step: Mutex<(@Sendable () async -> Void)?>

    /// An interleaving that runs `step` once.
    init(_ step: @escaping @Sendable () async -> Void) { self.step = Mutex(step) }

    /// Runs the step, the first time only.
    func runOnce() async {
        let step = self.step.withLock { step in
            defer { step = nil }
            return step
        }
        await step?()
    }
}

/// An event store that runs an ``Interleaving`` before its first append, then appends to `base`.
struct InterleavedEventStore: EventStore {
    let base: any EventStore
    let interleaving: Interleaving

    func append(_ command: AppendCommand) async throws -> AppendResult {
        await self.interleaving.runOnce()
        return try await self.base.append(command)
    }

    func appendEach(_ commands: [AppendCommand]) async -> [Result<AppendResult, any Error>] {
        await self.interleaving.runOnce()
        return await self.base.appendEach(commands)
    }
}

/// Verified emails that run an ``Interleaving`` before the first read of an email's owners, then read `base`.
struct InterleavedEmailOwnership: EmailOwnership {
    let base: any EmailOwnership
    let interleaving: Interleaving

    func record(emailHash: String, userID: UUID, provider: String, authoritative: Bool, at now: Timestamp) async throws
    {
        try await self.base.record(
            emailHash: emailHash,
            userID: userID,
            provider: provider,
            authoritative: authoritative,
            at: now
        )
    }

    func owners(of emailHash: String) async throws -> [EmailOwner] {
        await self.interleaving.runOnce()
        return try await self.base.owners(of: emailHash)
    }

    func forget(userID: UUID, provider: String) async throws {
        try await self.base.forget(userID: userID, provider: provider)
    }

    func forgetAll(userID: UUID) async throws { try await self.base.forgetAll(userID: userID) }
}
