import AuthlogAccounts
import AuthlogCore
import Testing

/// Refresh-token rotation and reuse detection, decided by TokenService over the in-memory stores.
struct RefreshRuleTests {
    @Test func aRefreshRotatesTheTokenAndKeepsTheSession() async throws {
        let rules = try RuleHarness()
        let first = try await rules.signIn("alice")
        let second = try await rules.tokens.refresh(first.refreshToken, metadata: RuleHarness.request)
        #expect(second.refreshToken != first.refreshToken)
        #expect(second.sessionID == first.sessionID)
        #expect(second.userID == first.userID)
        #expect(rules.eventTypes.filter { $0 == .tokenRefreshed }.count == 1)
        let third = try await rules.tokens.refresh(second.refreshToken, metadata: RuleHarness.request)
        #expect(third.sessionID == first.sessionID)
    }

    @Test func reusingASpentTokenRevokesTheWholeFamily() async throws {
        let rules = try RuleHarness()
        let first = try await rules.signIn("alice")
        let second = try await rules.tokens.refresh(first.refreshToken, metadata: RuleHarness.request)
        let reuse = await #expect(throws: ServiceError.self) {
            try await rules.tokens.refresh(first.refreshToken, metadata: RuleHarness.request)
        }
        #expect(reuse?.code == "invalid_grant")
        #expect(rules.eventTypes.filter { $0 == .tokenReuseDetected }.count == 1)
        // The successor dies with the family: its holder (the thief or the user) must sign in again.
        let successor = await #expect(throws: ServiceError.self) {
            try await rules.tokens.refresh(second.refreshToken, metadata: RuleHarness.request)
        }
        #expect(successor?.code == "invalid_grant")
        let session = try await rules.stores.sessions.session(first.sessionID)
        #expect(session?.state == .revoked)
    }

    @Test func ofTwoConcurrentRefreshesOfOneTokenExactlyOneWins() async throws {
        let rules = try RuleHarness()
        let first = try await rules.signIn("alice")
        let outcomes = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<2 {
                group.addTask {
                    (try? await rules.tokens.refresh(first.refreshToken, metadata: RuleHarness.request)) != nil
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 }.count == 1)
        #expect(rules.eventTypes.filter { $0 == .tokenRefreshed }.count == 1)
        #expect(rules.eventTypes.filter { $0 == .tokenReuseDetected }.count == 1)
    }

    @Test func logoutEndsTheSessionAndItsRefreshToken() async throws {
        let rules = try RuleHarness()
        let first = try await rules.signIn("alice")
        try await rules.tokens.logout(bearer: first.accessToken, scope: .this, metadata: RuleHarness.request)
        #expect(try await rules.stores.sessions.session(first.sessionID)?.state == .loggedOut)
        let after = await #expect(throws: ServiceError.self) {
            try await rules.tokens.refresh(first.refreshToken, metadata: RuleHarness.request)
        }
        #expect(after?.code == "invalid_grant")
    }
}
