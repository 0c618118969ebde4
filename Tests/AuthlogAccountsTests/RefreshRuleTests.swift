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

/// A refresh that loses every round on its session stream is still an attempt on the record.
struct RefreshConflictTests {
    /// Every append that expects a stream version collides, as if other commands kept changing the session;
    /// appends without an expectation go through.
    struct AlwaysColliding: EventStore {
        let base: any EventStore

        func append(_ command: AppendCommand) async throws -> AppendResult {
            guard command.expectedVersions.isEmpty else { throw WrongExpectedVersion("the session moved (test)") }
            return try await self.base.append(command)
        }

        func appendEach(_ commands: [AppendCommand]) async -> [Result<AppendResult, any Error>] {
            var results: [Result<AppendResult, any Error>] = []
            for command in commands {
                do { results.append(.success(try await self.append(command))) } catch {
                    results.append(.failure(error))
                }
            }
            return results
        }
    }

    @Test func aRefreshThatKeepsCollidingAnswers409AndIsRecordedOnItsSession() async throws {
        let rules = try RuleHarness()
        let session = try await rules.signIn("alice")
        let tokens = TokenService(dependencies: rules.dependencies(store: AlwaysColliding(base: rules.stores.events)))
        await #expect {
            try await tokens.refresh(session.refreshToken, metadata: RuleHarness.request)
        } throws: { error in
            (error as? ServiceError)?.code == "conflict"
        }
        let failed = try #require(rules.events(.tokenRefreshFailed).last)
        #expect(failed.reason == "conflict" && failed.sessionID == session.sessionID)
        #expect(rules.events(.tokenRefreshed).isEmpty)
        #expect(try await rules.refreshes(session.refreshToken), "nothing was spent")
    }
}
