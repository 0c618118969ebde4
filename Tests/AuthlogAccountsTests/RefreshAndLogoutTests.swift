import AuthlogAccounts
import AuthlogCore
import Foundation
import Testing

/// Exactly-once rotation, reuse detection, logout and introspection, decided by TokenService.
struct RefreshAndLogoutTests {
    @Test func fiftyConcurrentRefreshesWithOneTokenGiveOneSuccessAndARevokedFamily() async throws {
        let rules = try RuleHarness()
        let signin = try await rules.signIn("alice")
        let outcomes = await withTaskGroup(of: Result<TokenResponse, any Error>.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    do {
                        return .success(
                            try await rules.tokens.refresh(signin.refreshToken, metadata: RuleHarness.request)
                        )
                    } catch {
                        return .failure(error)
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let winners = outcomes.compactMap { try? $0.get() }
        let refusals = outcomes.compactMap { outcome -> ServiceError? in
            if case .failure(let error) = outcome { return error as? ServiceError }
            return nil
        }
        #expect(winners.count == 1)
        #expect(refusals.count == 49)
        #expect(refusals.allSatisfy { $0.code == "invalid_grant" && $0.status.code == 401 })
        // The family is revoked: even the winner's new token is dead, and the session is over.
        let winner = try #require(winners.first)
        #expect(try await rules.refreshes(winner.refreshToken) == false)
        #expect(try await rules.isActive(winner.refreshToken) == false)
        #expect(try await rules.stores.sessions.session(signin.sessionID)?.state == .revoked)
        #expect(rules.events(.tokenRefreshed).count == 1)
        #expect(rules.events(.tokenReuseDetected).count == 1)
        #expect(try await rules.tokens.introspect(winner.accessToken) == .object([("active", .bool(false))]))
    }

    @Test func rotatedTokenReusedLaterRevokesTheFamily() async throws {
        let rules = try RuleHarness()
        let first = try await rules.signIn("alice")
        let second = try await rules.tokens.refresh(first.refreshToken, metadata: RuleHarness.request)
        let third = try await rules.tokens.refresh(second.refreshToken, metadata: RuleHarness.request)
        #expect(try await rules.isActive(third.refreshToken))
        // The first token, rotated long ago, comes back: an attacker's copy.
        let reuse = await #expect(throws: ServiceError.self) {
            try await rules.tokens.refresh(first.refreshToken, metadata: RuleHarness.request)
        }
        #expect(reuse?.code == "invalid_grant")
        #expect(reuse?.status.code == 401)
        #expect(try await rules.refreshes(third.refreshToken) == false)
        let events = rules.stores.events.events
        #expect(events.map(\.type).suffix(2) == [.tokenReuseDetected, .tokenRefreshFailed])
        #expect(events.last?.reason == "revoked")
        #expect(events.dropLast().last?.outcome == .failure)
    }

    /// A token authlog never issued names nobody: the refusal carries its kind for the HTTP layer to count by
    /// address, and the service writes no event of it alone (so a loop of them cannot grow the log).
    @Test func unknownRefreshTokenIsCountedByAddressNotRecordedAlone() async throws {
        let rules = try RuleHarness()
        let refusal = await #expect(throws: ServiceError.self) {
            try await rules.tokens.refresh("alr_not-a-token-we-made", metadata: RuleHarness.request)
        }
        #expect(refusal?.status.code == 401)
        #expect(refusal?.code == "invalid_grant")
        #expect(refusal?.tokenUseRefusal == TokenUseRefusal(reason: "refresh_unknown_token", session: nil))
        #expect(rules.stores.events.events.isEmpty)
    }

    @Test func expiredRefreshTokenIsRefusedAndRecorded() async throws {
        var settings = ServiceSettings()
        settings.lifetimes.rememberMe.absolute = 0
        let rules = try RuleHarness(settings: settings)
        let signin = try await rules.signIn("alice")
        let refusal = await #expect(throws: ServiceError.self) {
            try await rules.tokens.refresh(signin.refreshToken, metadata: RuleHarness.request)
        }
        #expect(refusal?.status.code == 401)
        #expect(refusal?.code == "invalid_grant")
        // The token's lifetime is the session's absolute one: the refresh records the refused attempt and
        // the session's expiry, in that order, on the session stream.
        let events = rules.stores.events.events.suffix(2)
        #expect(events.map(\.type) == [.tokenRefreshFailed, .sessionExpired])
        #expect(events.map(\.reason) == ["session_expired", "absolute"])
        #expect(events.allSatisfy { $0.stream.category == "session" })
    }

    @Test func accessTokenPresentedAsRefreshTokenIsRefused() async throws {
        let rules = try RuleHarness()
        let signin = try await rules.signIn("alice")
        let refusal = await #expect(throws: ServiceError.self) {
            try await rules.tokens.refresh(signin.accessToken, metadata: RuleHarness.request)
        }
        #expect(refusal?.status.code == 401)
        #expect(refusal?.tokenUseRefusal?.reason == "refresh_unknown_token")
        #expect(rules.stores.events.events(ofType: .tokenRefreshFailed).isEmpty)
        // And the reverse: a refresh token is no bearer token.
        let logout = await #expect(throws: ServiceError.self) {
            try await rules.tokens.logout(bearer: signin.refreshToken, scope: .this, metadata: RuleHarness.request)
        }
        #expect(logout?.status.code == 401)
        #expect(logout?.code == "invalid_token")
    }

    @Test func logoutThisEndsOnlyThatSessionAndKillsItsTokensAtOnce() async throws {
        let rules = try RuleHarness()
        let phone = try await rules.signIn("alice")
        let laptop = try await rules.signIn("alice")
        #expect(try await rules.isActive(phone.accessToken))
        try await rules.tokens.logout(bearer: phone.accessToken, scope: .this, metadata: RuleHarness.request)
        #expect(try await rules.tokens.introspect(phone.accessToken) == .object([("active", .bool(false))]))
        #expect(try await rules.tokens.introspect(phone.refreshToken) == .object([("active", .bool(false))]))
        #expect(try await rules.refreshes(phone.refreshToken) == false)
        // The other session lives on.
        #expect(try await rules.isActive(laptop.accessToken))
        #expect(try await rules.refreshes(laptop.refreshToken))
        // A second logout with the same access token is refused: the session has ended.
        let again = await #expect(throws: ServiceError.self) {
            try await rules.tokens.logout(bearer: phone.accessToken, scope: .this, metadata: RuleHarness.request)
        }
        #expect(again?.status.code == 401)
    }

    @Test func logoutAllEndsEverySessionOfTheUser() async throws {
        let rules = try RuleHarness()
        let phone = try await rules.signIn("alice")
        let laptop = try await rules.signIn("alice")
        let other = try await rules.signIn("bob")
        try await rules.tokens.logout(bearer: phone.accessToken, scope: .all, metadata: RuleHarness.request)
        #expect(try await rules.refreshes(laptop.refreshToken) == false)
        #expect(try await rules.tokens.introspect(laptop.accessToken) == .object([("active", .bool(false))]))
        #expect(try await rules.refreshes(other.refreshToken))
        let loggedOut = rules.events(.sessionLoggedOut)
        #expect(loggedOut.count == 1)
        #expect(loggedOut.first?.data["scope"]?.stringValue == "all")
    }
}
