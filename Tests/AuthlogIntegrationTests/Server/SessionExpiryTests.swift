import AuthlogCore
import AuthlogServer
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

/// Absolute and idle session lifetimes, at refresh and by the sweeper.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct SessionExpiryTests {
    @Test func twoSweepersRacingExpireEverySessionExactlyOnce() async throws {
        try await ServerHarness.run { harness in
            var sessions: [SignedIn] = []
            for index in 0..<40 { sessions.append(try await harness.signInDev("user-\(index)")) }
            // A plain session (no "remember me") has the shorter lifetimes.
            let plain = try await harness.post(
                "/v1/signin/dev",
                .members(["subject": "plain", "remember_me": .bool(false)])
            ).signedIn()
            let sweeper = harness.components.account.sweeper
            // Three hours on: past the plain session's idle lifetime (2 h), not the others'.
            let soon = Timestamp.now().adding(seconds: 3 * 3_600)
            #expect(try await sweeper.sweep(at: soon) == 1)
            #expect(try await harness.events(ofType: "session.expired").first?.sessionID == plain.sessionID)

            // Forty days on, two sweepers race over every other session, in small batches.
            let later = Timestamp.now().adding(seconds: 40 * 86_400)
            async let first = sweeper.sweep(at: later, batchSize: 7)
            async let second = sweeper.sweep(at: later, batchSize: 7)
            let counts = try await [first, second]
            #expect(counts.reduce(0, +) == sessions.count)
            let expired = try await harness.events(ofType: "session.expired")
            #expect(expired.count == sessions.count + 1)
            #expect(Set(expired.compactMap(\.sessionID)).count == expired.count)
            #expect(expired.dropFirst().allSatisfy { $0.data["limit"] == "absolute" })
            #expect(try await harness.count("SELECT count(*) FROM dashboard.active_sessions") == 0)
            #expect(try await sweeper.sweep(at: later) == 0)
        }
    }
}
