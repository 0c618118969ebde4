import AuthlogCore
import AuthlogCrypto
import AuthlogTesting
import Foundation
import Synchronization
import Testing

@testable import AuthlogAccounts

/// The grace window is judged by when a replay was presented, not by when a loaded server got to it: concurrent
/// replays take turns on the session stream, and the last one's turn may come after the window although the
/// client sent it in time (seen once under CI load, which then logged the user out).
struct RefreshGraceTimingTests {
    /// The projections' reads, with each lookup of a refresh token held for `delay` once `isSlow` is set: a
    /// server slow to reach a presented token.
    final class SlowTokenReads: SessionReads {
        let base: any SessionReads
        let delay: Duration
        let isSlow = Mutex(true)

        init(base: any SessionReads, delay: Duration) {
            self.base = base
            self.delay = delay
        }

        func refreshToken(hash: [UInt8], withSessionSignin: Bool) async throws -> RefreshTokenRecord? {
            if self.isSlow.withLock({ $0 }) { try await Task.sleep(for: self.delay) }
            return try await self.base.refreshToken(hash: hash, withSessionSignin: withSessionSignin)
        }
        func identities(provider: String, subjectHashes: [String]) async throws -> [String: IdentityRecord] {
            try await self.base.identities(provider: provider, subjectHashes: subjectHashes)
        }
        func identities(of userID: UUID) async throws -> [IdentityRecord] { try await self.base.identities(of: userID) }
        func session(_ sessionID: UUID) async throws -> SessionRecord? { try await self.base.session(sessionID) }
        func activeSessions(
            of userID: UUID,
            provider: String?
        ) async throws -> [(session: SessionRecord, version: Int32)] {
            try await self.base.activeSessions(of: userID, provider: provider)
        }
        func userExists(_ userID: UUID) async throws -> Bool { try await self.base.userExists(userID) }
        func isReachable() async -> Bool { await self.base.isReachable() }
    }

    @Test func aReplayPresentedInTheWindowIsAnsweredThoughItsTurnCameAfter() async throws {
        let rules = try RefreshGraceTests.rules(grace: 1)
        let signin = try await rules.signIn("alice")
        let rotated = try await rules.tokens.refresh(signin.refreshToken, metadata: RuleHarness.request)
        var state = rules.stores.accountState
        let slow = SlowTokenReads(base: state.queries, delay: .milliseconds(1_500))
        state.queries = slow
        let dependencies = ServiceDependencies(
            store: rules.stores.events,
            state: state,
            accessTokens: rules.dependencies.accessTokens,
            settings: rules.dependencies.settings,
            metrics: CountingMetrics(),
            dataKey: RuleHarness.dataKey,
            hasher: rules.dependencies.hasher
        )
        // Presented within the 1 s window, reached 1.5 s later.
        let replayed = try await TokenService(dependencies: dependencies)
            .refresh(signin.refreshToken, metadata: RuleHarness.request)
        #expect(replayed.refreshToken == rotated.refreshToken && replayed.accessToken == rotated.accessToken)
        #expect(rules.events(.tokenRefreshReplayed).count == 1)
        #expect(rules.events(.tokenReuseDetected).isEmpty, "the user is not logged out")
        // Presented after the window, it is reuse.
        slow.isSlow.withLock { $0 = false }
        try await Task.sleep(for: .milliseconds(100))
        await #expect(throws: ServiceError.self) {
            try await TokenService(dependencies: dependencies).refresh(
                signin.refreshToken,
                metadata: RuleHarness.request
            )
        }
        #expect(rules.events(.tokenReuseDetected).count == 1)
    }
}
