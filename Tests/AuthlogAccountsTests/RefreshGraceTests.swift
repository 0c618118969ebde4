import AuthlogCore
import AuthlogCrypto
import Foundation
import Testing

@testable import AuthlogAccounts

/// The refresh-token reuse grace window (`refresh_token.reuse_grace_seconds`), decided by TokenService over
/// the in-memory stores.
struct RefreshGraceTests {
    /// The rules with a grace window of `seconds`.
    static func rules(grace seconds: Int64 = 10) throws -> RuleHarness {
        var settings = RuleHarness.settings
        settings.refreshReuseGrace = seconds
        return try RuleHarness(settings: settings)
    }

    /// Refreshes with `token` `count` times at once; each outcome in completion order.
    static func refreshConcurrently(
        _ token: String,
        times count: Int,
        with rules: RuleHarness
    ) async -> [Result<TokenResponse, ServiceError>] {
        await withTaskGroup(of: Result<TokenResponse, ServiceError>.self) { group in
            for _ in 0..<count {
                group.addTask {
                    do throws(ServiceError) {
                        return .success(try await rules.tokens.refresh(token, metadata: RuleHarness.request))
                    } catch {
                        return .failure(error)
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
    }

    @Test func eightConcurrentRefreshesOfOneTokenGetOneAnswer() async throws {
        let rules = try Self.rules()
        let signin = try await rules.signIn("alice")
        let outcomes = await Self.refreshConcurrently(signin.refreshToken, times: 8, with: rules)
        let answers = outcomes.compactMap { try? $0.get() }
        #expect(answers.count == 8, "\(outcomes)")
        let first = try #require(answers.first)
        #expect(first.refreshToken != signin.refreshToken)
        #expect(answers.allSatisfy { $0.refreshToken == first.refreshToken && $0.accessToken == first.accessToken })
        #expect(answers.allSatisfy { $0.refreshTokenExpiresAt == first.refreshTokenExpiresAt })
        #expect(answers.allSatisfy { $0.accessTokenExpiresAt == first.accessTokenExpiresAt })
        #expect(rules.events(.tokenRefreshed).count == 1)
        #expect(rules.events(.tokenRefreshReplayed).count == 7)
        #expect(rules.events(.tokenReuseDetected).isEmpty)
        // Nobody was logged out: the session lives, and the one pair everybody got works.
        #expect(try await rules.stores.sessions.session(signin.sessionID)?.state == .active)
        #expect(try await rules.isActive(first.accessToken))
        #expect(try await rules.refreshes(first.refreshToken))
    }

    @Test func theReplayedEventNamesTheRefreshWhosePairItGaveAgain() async throws {
        let rules = try Self.rules()
        let signin = try await rules.signIn("alice")
        let refreshed = try await rules.tokens.refresh(signin.refreshToken, metadata: RuleHarness.request)
        let again = try await rules.tokens.refresh(signin.refreshToken, metadata: RuleHarness.request)
        #expect(again.refreshToken == refreshed.refreshToken && again.accessToken == refreshed.accessToken)
        let rotation = try #require(rules.events(.tokenRefreshed).first)
        let replay = try #require(rules.events(.tokenRefreshReplayed).first)
        let payload = try replay.payload(as: TokenRefreshReplayed.self)
        let original = try rotation.payload(as: TokenRefreshed.self)
        #expect(payload.refreshedEventID == rotation.eventID)
        #expect(payload.tokenID == original.oldTokenID && payload.familyID == original.familyID)
        #expect(payload.newTokenID == original.newTokenID && payload.accessTokenID == original.accessTokenID)
        #expect(replay.sessionID == signin.sessionID && replay.outcome == .success)
        // The same access token id: the replay minted nothing.
        let claims = try rules.dependencies.accessTokens.verify(again.accessToken)
        #expect(claims.tokenID == original.accessTokenID)
        // No token is in the event, in clear.
        #expect(!replay.data.canonicalText.contains(refreshed.refreshToken))
        #expect(!replay.data.canonicalText.contains(signin.refreshToken))
    }

    @Test func aReplayAfterTheWindowIsReuse() async throws {
        let rules = try Self.rules(grace: 1)
        let signin = try await rules.signIn("alice")
        let refreshed = try await rules.tokens.refresh(signin.refreshToken, metadata: RuleHarness.request)
        let within = try await rules.tokens.refresh(signin.refreshToken, metadata: RuleHarness.request)
        #expect(within.refreshToken == refreshed.refreshToken)
        try await Task.sleep(for: .milliseconds(1_100))
        let late = await #expect(throws: ServiceError.self) {
            try await rules.tokens.refresh(signin.refreshToken, metadata: RuleHarness.request)
        }
        #expect(late?.code == "invalid_grant" && late?.status.code == 401)
        #expect(rules.events(.tokenReuseDetected).count == 1)
        #expect(try await rules.stores.sessions.session(signin.sessionID)?.state == .revoked)
        #expect(try await rules.refreshes(refreshed.refreshToken) == false)
    }

    @Test func aReplayAfterTheSuccessorWasUsedIsReuse() async throws {
        let rules = try Self.rules()
        let signin = try await rules.signIn("alice")
        let second = try await rules.tokens.refresh(signin.refreshToken, metadata: RuleHarness.request)
        #expect(
            try await rules.tokens.refresh(signin.refreshToken, metadata: RuleHarness.request).refreshToken
                == second.refreshToken
        )
        let third = try await rules.tokens.refresh(second.refreshToken, metadata: RuleHarness.request)
        // The first token comes back within its window, but its successor is spent: someone holds a copy.
        let reuse = await #expect(throws: ServiceError.self) {
            try await rules.tokens.refresh(signin.refreshToken, metadata: RuleHarness.request)
        }
        #expect(reuse?.code == "invalid_grant")
        #expect(rules.events(.tokenReuseDetected).count == 1)
        #expect(try await rules.stores.sessions.session(signin.sessionID)?.state == .revoked)
        #expect(try await rules.refreshes(third.refreshToken) == false)
    }

    @Test func aGraceOfZeroIsTheRuleWithoutGrace() async throws {
        let rules = try Self.rules(grace: 0)
        let signin = try await rules.signIn("alice")
        let outcomes = await Self.refreshConcurrently(signin.refreshToken, times: 8, with: rules)
        #expect(outcomes.compactMap { try? $0.get() }.count == 1)
        #expect(rules.events(.tokenRefreshed).count == 1)
        #expect(rules.events(.tokenRefreshReplayed).isEmpty)
        #expect(rules.events(.tokenReuseDetected).count == 1)
        #expect(try await rules.stores.sessions.session(signin.sessionID)?.state == .revoked)
        // Nothing was sealed: with the grace off, no answer is kept anywhere.
        let spent = try await rules.stores.sessions.refreshToken(hash: RefreshTokenSecret.hash(of: signin.refreshToken))
        #expect(spent?.state == .revoked && spent?.sealedSuccessor == nil)
    }

    @Test func aBoxOpensOnlyWithItsOwnToken() async throws {
        let rules = try Self.rules()
        let alice = try await rules.signIn("alice")
        let bob = try await rules.signIn("bob")
        _ = try await rules.tokens.refresh(alice.refreshToken, metadata: RuleHarness.request)
        let bobs = try await rules.tokens.refresh(bob.refreshToken, metadata: RuleHarness.request)
        #expect(
            try await rules.tokens.refresh(bob.refreshToken, metadata: RuleHarness.request).accessToken
                == bobs.accessToken
        )
        let aliceSpent = try #require(
            try await rules.stores.sessions.refreshToken(hash: RefreshTokenSecret.hash(of: alice.refreshToken))
        )
        let bobSpent = try #require(
            try await rules.stores.sessions.refreshToken(hash: RefreshTokenSecret.hash(of: bob.refreshToken))
        )
        let aliceBox = try #require(aliceSpent.sealedSuccessor)
        // Neither Bob's token, nor Alice's for Bob's row, nor a forged token opens Alice's box; nor garbage.
        #expect(SuccessorSeal.open(aliceBox, presentedToken: bob.refreshToken, record: aliceSpent) == nil)
        #expect(SuccessorSeal.open(aliceBox, presentedToken: alice.refreshToken, record: bobSpent) == nil)
        #expect(SuccessorSeal.open(aliceBox, presentedToken: "alr_forged", record: aliceSpent) == nil)
        #expect(SuccessorSeal.open([1, 2, 3], presentedToken: alice.refreshToken, record: aliceSpent) == nil)
        #expect(SuccessorSeal.open(aliceBox, presentedToken: alice.refreshToken, record: aliceSpent) != nil)

        // Alice's box planted on Bob's spent row: Bob's token does not open it, so it is reuse, not a crash.
        try await rules.stores.events.append(
            AppendCommand(
                events: [try Self.harmlessEvent()],
                sealedSuccessor: SealedSuccessor(
                    tokenID: bobSpent.tokenID,
                    familyID: bobSpent.familyID,
                    sessionID: bobSpent.sessionID,
                    sealed: aliceBox
                )
            )
        )
        let planted = await #expect(throws: ServiceError.self) {
            try await rules.tokens.refresh(bob.refreshToken, metadata: RuleHarness.request)
        }
        #expect(planted?.code == "invalid_grant")
        #expect(rules.events(.tokenReuseDetected).map(\.sessionID) == [bob.sessionID])
        // A forged token finds no row at all.
        let forged = await #expect(throws: ServiceError.self) {
            try await rules.tokens.refresh("alr_" + String(repeating: "A", count: 43), metadata: RuleHarness.request)
        }
        #expect(forged?.code == "invalid_grant")
        #expect(forged?.tokenUseRefusal?.reason == "refresh_unknown_token")
        #expect(try await rules.stores.sessions.session(alice.sessionID)?.state == .active)
    }

    /// An event that changes no projection, to carry a planted box.
    static func harmlessEvent() throws -> EventEnvelope {
        try EventEnvelope(
            TokenRefreshFailed(reason: "unknown_token"),
            stream: StreamName(category: "signin", id: "unknown"),
            reason: "unknown_token"
        )
    }
}
