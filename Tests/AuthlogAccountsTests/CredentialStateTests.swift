import AuthlogAccounts
import AuthlogCore
import AuthlogProviders
import Foundation
import Testing

/// What the app's `getCredentialState` said, decided by AccountService.reportCredentialState.
struct CredentialStateTests {
    @Test func revokedEndsTheAppleSessionsOnceAndRecordsTheConsentRevocationOnce() async throws {
        let rules = try RuleHarness()
        let apple = try await rules.signInWithApple()
        let second = try await rules.signInWithApple()
        try await rules.accounts.reportCredentialState(
            bearer: apple.accessToken,
            provider: "apple",
            state: .revoked,
            metadata: RuleHarness.request
        )
        #expect(try await rules.refreshes(apple.refreshToken) == false)
        #expect(try await rules.refreshes(second.refreshToken) == false)
        #expect(try await rules.tokens.introspect(apple.accessToken) == .object([("active", .bool(false))]))
        let consent = rules.events(.providerConsentRevoked)
        #expect(consent.count == 1)
        #expect(consent.first?.data["source"]?.stringValue == "app_credential_state")
        #expect(consent.first?.userID == apple.userID)
        let revoked = rules.events(.sessionRevoked)
        #expect(Set(revoked.compactMap(\.sessionID)) == [apple.sessionID, second.sessionID])
        #expect(revoked.allSatisfy { $0.reason == "credential_revoked" })

        // The reporting session itself has ended: a repeat is refused as such and records nothing.
        let again = await #expect(throws: ServiceError.self) {
            try await rules.accounts.reportCredentialState(
                bearer: apple.accessToken,
                provider: "apple",
                state: .revoked,
                metadata: RuleHarness.request
            )
        }
        #expect(again?.status.code == 401)
        #expect(rules.events(.providerConsentRevoked).count == 1)
        #expect(rules.events(.sessionRevoked).count == 2)
    }

    @Test func revokedTwiceFromASurvivingSessionRecordsNothingTheSecondTime() async throws {
        let rules = try RuleHarness()
        let apple = try await rules.signInWithApple()
        rules.github.accept("583231", email: "octo@example.com", credential: "gho_1")
        try await rules.accounts.link(
            bearer: apple.accessToken,
            provider: "github",
            proof: SigninProof(subject: "583231"),
            metadata: RuleHarness.request
        )
        // A GitHub session of the same user survives the Apple revocation and can report it again.
        let githubSession = try await rules.signIn(with: "github", "583231")
        #expect(githubSession.userID == apple.userID)
        try await rules.accounts.reportCredentialState(
            bearer: githubSession.accessToken,
            provider: "apple",
            state: .revoked,
            metadata: RuleHarness.request
        )
        let before = rules.stores.events.events.count
        try await rules.accounts.reportCredentialState(
            bearer: githubSession.accessToken,
            provider: "apple",
            state: .revoked,
            metadata: RuleHarness.request
        )
        #expect(rules.stores.events.events.count == before)
        #expect(rules.events(.providerConsentRevoked).count == 1)
        #expect(try await rules.refreshes(githubSession.refreshToken))
    }

    @Test func notFoundEndsTheSessionsWithoutAConsentRevocationAndAuthorizedChangesNothing() async throws {
        let rules = try RuleHarness()
        let apple = try await rules.signInWithApple()
        let before = rules.stores.events.events.count
        try await rules.accounts.reportCredentialState(
            bearer: apple.accessToken,
            provider: "apple",
            state: .authorized,
            metadata: RuleHarness.request
        )
        #expect(rules.stores.events.events.count == before)
        try await rules.accounts.reportCredentialState(
            bearer: apple.accessToken,
            provider: "apple",
            state: .notFound,
            metadata: RuleHarness.request
        )
        #expect(rules.events(.providerConsentRevoked).isEmpty)
        #expect(rules.events(.sessionRevoked).map(\.reason) == ["credential_not_found"])
        #expect(try await rules.refreshes(apple.refreshToken) == false)
    }

    @Test func aProviderTheUserHasNoIdentityOfIsRefusedAndRecorded() async throws {
        let rules = try RuleHarness()
        let dev = try await rules.signIn("alice")
        let refusal = await #expect(throws: ServiceError.self) {
            try await rules.accounts.reportCredentialState(
                bearer: dev.accessToken,
                provider: "apple",
                state: .revoked,
                metadata: RuleHarness.request
            )
        }
        #expect(refusal?.status.code == 422)
        #expect(refusal?.code == "identity_not_linked")
        let refused = try #require(rules.events(.accountActionRefused).first)
        #expect(refused.reason == "identity_not_linked")
        #expect(refused.data["action"]?.stringValue == "credential_state")
        #expect(rules.events(.sessionRevoked).isEmpty)
    }
}
