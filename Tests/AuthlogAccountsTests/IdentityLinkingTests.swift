import AuthlogAccounts
import AuthlogCore
import AuthlogProviders
import Foundation
import Testing

/// Re-authentication, linking and unlinking identities, and the same-email policy, decided by AccountService and
/// SigninService.
struct IdentityLinkingTests {
    static let octocat = "583231"

    @Test func linkingNeedsARecentAuthenticationWhichReauthenticationGives() async throws {
        let rules = try RuleHarness()
        let apple = try await rules.signInWithApple()
        rules.github.accept(Self.octocat, email: "octo@example.com", credential: "gho_1")
        let stale = await #expect(throws: ServiceError.self) {
            try await rules.agedAccounts.link(
                bearer: apple.accessToken,
                provider: "github",
                proof: SigninProof(subject: Self.octocat),
                metadata: RuleHarness.request
            )
        }
        #expect(stale?.status.code == 401)
        #expect(stale?.code == "reauthentication_required")
        let refused = try #require(rules.events(.accountActionRefused).last)
        #expect(refused.reason == "reauthentication_required")
        #expect(refused.data["action"]?.stringValue == "link_identity")
        #expect(rules.events(.identityLinked).isEmpty)

        let before = try #require(try await rules.stores.sessions.session(apple.sessionID)).authenticatedAt
        let at = try await rules.accounts.reauthenticate(
            bearer: apple.accessToken,
            provider: "apple",
            proof: SigninProof(subject: "001234.apple-user"),
            metadata: RuleHarness.request
        )
        #expect(at > before)
        #expect(try await rules.stores.sessions.session(apple.sessionID)?.authenticatedAt == at)
        let event = try #require(rules.events(.sessionReauthenticated).first)
        #expect(event.sessionID == apple.sessionID)
        #expect(event.provider == "apple")

        try await rules.accounts.link(
            bearer: apple.accessToken,
            provider: "github",
            proof: SigninProof(subject: Self.octocat),
            metadata: RuleHarness.request
        )
        let link = try #require(rules.events(.identityLinked).first)
        #expect(link.userID == apple.userID)
        #expect(link.provider == "github")
        #expect(link.data["policy"]?.stringValue == "reauthenticated")
        // The linked identity signs in as the same user.
        let github = try await rules.signIn(with: "github", Self.octocat)
        #expect(github.userID == apple.userID)
        #expect(!github.isNewUser)
    }

    @Test func aProofOfSomeoneElsesIdentityIsForbiddenAndRecorded() async throws {
        let rules = try RuleHarness()
        _ = try await rules.signInWithApple("000001.someone-else", email: "else@example.com")
        let apple = try await rules.signInWithApple()
        let mismatch = await #expect(throws: ServiceError.self) {
            try await rules.accounts.reauthenticate(
                bearer: apple.accessToken,
                provider: "apple",
                proof: SigninProof(subject: "000001.someone-else"),
                metadata: RuleHarness.request
            )
        }
        #expect(mismatch?.status.code == 403)
        #expect(mismatch?.code == "identity_mismatch")
        let refused = try #require(rules.events(.accountActionRefused).last)
        #expect(refused.reason == "identity_mismatch")
        #expect(refused.userID == apple.userID)
        #expect(rules.events(.sessionReauthenticated).isEmpty)

        // A refused proof is a failed sign-in attempt, recorded with the action it was for.
        let badProof = await #expect(throws: ServiceError.self) {
            try await rules.accounts.reauthenticate(
                bearer: apple.accessToken,
                provider: "apple",
                proof: SigninProof(idToken: "not.a.token", rawNonce: "x"),
                metadata: RuleHarness.request
            )
        }
        #expect(badProof?.status.code == 401)
        let failed = try #require(rules.events(.signinFailed).last)
        #expect(failed.data["action"]?.stringValue == "reauthenticate")
        #expect(failed.userID == apple.userID)
    }

    @Test func linkingAnIdentityAnotherUserOwnsIsAConflictAndUnlinkingKeepsTheLastOne() async throws {
        let rules = try RuleHarness()
        rules.github.accept(Self.octocat, email: "octo@example.com", credential: "gho_1")
        let owner = try await rules.signIn(with: "github", Self.octocat)
        let apple = try await rules.signInWithApple()
        let conflict = await #expect(throws: ServiceError.self) {
            try await rules.accounts.link(
                bearer: apple.accessToken,
                provider: "github",
                proof: SigninProof(subject: Self.octocat),
                metadata: RuleHarness.request
            )
        }
        #expect(conflict?.status.code == 409)
        #expect(conflict?.code == "identity_in_use")
        #expect(rules.events(.accountActionRefused).last?.reason == "identity_in_use")
        #expect(rules.events(.identityLinked).isEmpty)

        let last = await #expect(throws: ServiceError.self) {
            try await rules.accounts.unlink(
                bearer: owner.accessToken,
                provider: "github",
                metadata: RuleHarness.request
            )
        }
        #expect(last?.status.code == 409)
        #expect(last?.code == "last_identity")
        #expect(rules.events(.accountActionRefused).last?.reason == "last_identity")

        rules.google.accept("1098765432", email: "g@gmail.com")
        try await rules.accounts.link(
            bearer: owner.accessToken,
            provider: "google",
            proof: SigninProof(subject: "1098765432"),
            metadata: RuleHarness.request
        )
        try await rules.accounts.unlink(bearer: owner.accessToken, provider: "github", metadata: RuleHarness.request)
        let unlinked = try #require(rules.events(.identityUnlinked).first)
        #expect(unlinked.userID == owner.userID)
        #expect(unlinked.provider == "github")
        // GitHub is free again: signing in with it makes a new user.
        let again = try await rules.signIn(with: "github", Self.octocat)
        #expect(again.isNewUser)
        #expect(again.userID != owner.userID)
    }

    @Test func aSecondProviderWithTheSameEmailMeetsAccountExists() async throws {
        let rules = try RuleHarness()
        let apple = try await rules.signInWithApple(email: "g@gmail.com")
        rules.google.accept("1098765432", email: "g@gmail.com")
        let refusal = await #expect(throws: ServiceError.self) {
            try await rules.signIn(with: "google", "1098765432")
        }
        #expect(refusal?.status.code == 409)
        #expect(refusal?.code == "account_exists")
        #expect(refusal?.extraMembers.first { $0.name == "providers" }?.value == .array([.string("apple")]))
        let failed = try #require(rules.events(.signinFailed).last)
        #expect(failed.reason == "account_exists")
        #expect(failed.provider == "google")
        #expect(rules.events(.userRegistered).map(\.userID) == [apple.userID])
        // No event keeps the address in clear.
        #expect(!rules.stores.events.events.map(\.data.canonicalText).joined().contains("g@gmail.com"))
    }

    @Test func withLinkingByEmailOnAnAuthoritativeIssuerLinksAndAnotherIsStillRefused() async throws {
        var settings = ServiceSettings()
        settings.linkByVerifiedEmail = true
        let rules = try RuleHarness(settings: settings)
        let apple = try await rules.signInWithApple(email: "g@gmail.com")
        rules.google.accept("1098765432", email: "g@gmail.com")
        let google = try await rules.signIn(with: "google", "1098765432")
        #expect(google.userID == apple.userID)
        #expect(!google.isNewUser)
        let link = try #require(rules.events(.identityLinked).first)
        #expect(link.data["policy"]?.stringValue == "verified_email")
        #expect(link.provider == "google")

        // GitHub is not authoritative for any address: the same policy refuses it.
        _ = try await rules.signInWithApple("000777.octo", email: "octo@example.com")
        rules.github.accept(Self.octocat, email: "octo@example.com")
        let github = await #expect(throws: ServiceError.self) { try await rules.signIn(with: "github", Self.octocat) }
        #expect(github?.status.code == 409)
        #expect(github?.code == "account_exists")
        // Google is not authoritative for a non-Gmail address outside a Workspace domain either.
        _ = try await rules.signInWithApple("000888.other", email: "someone@example.org")
        rules.google.accept("5550001", email: "someone@example.org", authoritative: false)
        let google2 = await #expect(throws: ServiceError.self) { try await rules.signIn(with: "google", "5550001") }
        #expect(google2?.status.code == 409)
        #expect(rules.events(.identityLinked).count == 1)
    }
}
