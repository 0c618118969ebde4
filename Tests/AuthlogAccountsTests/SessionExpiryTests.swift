import AuthlogAccounts
import AuthlogCore
import Foundation
import Testing

/// Absolute and idle session lifetimes, at refresh (TokenService) and by the sweeper (SessionSweeper).
struct SessionExpiryTests {
    @Test func aRefreshPastTheIdleLifetimeIsRefusedAndRecordsTheExpiry() async throws {
        var settings = ServiceSettings()
        settings.lifetimes.rememberMe.idle = 0
        let rules = try RuleHarness(settings: settings)
        let session = try await rules.signIn("alice")
        let refusal = await #expect(throws: ServiceError.self) {
            try await rules.tokens.refresh(session.refreshToken, metadata: RuleHarness.request)
        }
        #expect(refusal?.status.code == 401)
        #expect(refusal?.code == "invalid_grant")
        let expired = try #require(rules.events(.sessionExpired).first)
        #expect(expired.data["limit"]?.stringValue == "idle")
        #expect(expired.sessionID == session.sessionID)
        #expect(try await rules.tokens.introspect(session.accessToken) == .object([("active", .bool(false))]))
        #expect(try await rules.stores.sessions.session(session.sessionID)?.state == .expired)
    }

    @Test func twoSweepersRacingExpireEverySessionExactlyOnce() async throws {
        let rules = try RuleHarness()
        var sessions: [TokenResponse] = []
        for index in 0..<40 { sessions.append(try await rules.signIn("user-\(index)")) }
        // A plain session (no "remember me") has the shorter lifetimes.
        let plain = try await rules.signIn("plain", rememberMe: false)
        // Three hours on: past the plain session's idle lifetime (2 h), not the others'.
        let soon = Timestamp.now().adding(seconds: 3 * 3_600)
        #expect(try await rules.sweeper.sweep(at: soon) == 1)
        #expect(rules.events(.sessionExpired).first?.sessionID == plain.sessionID)

        // Forty days on, two sweepers race over every other session, in small batches.
        let later = Timestamp.now().adding(seconds: 40 * 86_400)
        async let first = rules.sweeper.sweep(at: later, batchSize: 7)
        async let second = rules.sweeper.sweep(at: later, batchSize: 7)
        let counts = try await [first, second]
        #expect(counts.reduce(0, +) == sessions.count)
        let expired = rules.events(.sessionExpired)
        #expect(expired.count == sessions.count + 1)
        #expect(Set(expired.compactMap(\.sessionID)).count == expired.count)
        #expect(expired.dropFirst().allSatisfy { $0.data["limit"]?.stringValue == "absolute" })
        for session in sessions + [plain] {
            #expect(try await rules.stores.sessions.session(session.sessionID)?.state == .expired)
        }
        #expect(try await rules.sweeper.sweep(at: later) == 0)
    }
}
