import AuthlogCore
import AuthlogServer
import AuthlogTesting
import Foundation
import Testing

/// Re-authentication, linking and unlinking identities, and the same-email policy.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct IdentityLinkingTests {
    @Test func linkingNeedsARecentAuthenticationWhichReauthenticationGives() async throws {
        try await ServerHarness.run { harness in
            let apple = try await harness.signInWithApple()
            try await harness.ageAuthentication(of: apple)
            let stale = try await harness.send("POST", "/v1/me/identities/github", harness.githubProof(), as: apple)
            #expect(stale.status == 401)
            #expect(stale.string("error") == "reauthentication_required")
            let refused = try #require(try await harness.events(ofType: "account.action_refused").last)
            #expect(refused.reason == "reauthentication_required")
            #expect(refused.data["action"] == "link_identity")

            let reauth = try harness.appleReauthentication(subject: "001234.apple-user")
            let answer = try await harness.send("POST", "/v1/me/reauthenticate", reauth, as: apple)
            #expect(answer.status == 200)
            #expect(answer.string("authenticated_at") != nil)
            let event = try #require(try await harness.events(ofType: "session.reauthenticated").first)
            #expect(event.sessionID == apple.sessionID)
            #expect(event.provider == "apple")

            let linked = try await harness.send("POST", "/v1/me/identities/github", harness.githubProof(), as: apple)
            #expect(linked.status == 200)
            let link = try #require(try await harness.events(ofType: "identity.linked").first)
            #expect(link.userID == apple.userID)
            #expect(link.provider == "github")
            #expect(link.data["policy"] == "reauthenticated")
            // The linked identity signs in as the same user.
            let github = try await harness.post("/v1/signin/github", harness.githubProof()).signedIn()
            #expect(github.userID == apple.userID)
            #expect(!github.isNewUser)
        }
    }

    @Test func linkingAnIdentityAnotherUserOwnsIsAConflictAndUnlinkingKeepsTheLastOne() async throws {
        try await ServerHarness.run { harness in
            let owner = try await harness.post("/v1/signin/github", harness.githubProof()).signedIn()
            let apple = try await harness.signInWithApple()
            let conflict = try await harness.send("POST", "/v1/me/identities/github", harness.githubProof(), as: apple)
            #expect(conflict.status == 409)
            #expect(conflict.string("error") == "identity_in_use")
            #expect(try await harness.events(ofType: "account.action_refused").last?.reason == "identity_in_use")
            #expect(try await harness.events(ofType: "identity.linked").isEmpty)

            let last = try await harness.send("DELETE", "/v1/me/identities/github", as: owner)
            #expect(last.status == 409)
            #expect(last.string("error") == "last_identity")
            #expect(try await harness.events(ofType: "account.action_refused").last?.reason == "last_identity")

            let google = try await harness.send("POST", "/v1/me/identities/google", harness.googleProof(), as: owner)
            #expect(google.status == 200)
            let unlink = try await harness.send("DELETE", "/v1/me/identities/github", as: owner)
            #expect(unlink.status == 204)
            let unlinked = try #require(try await harness.events(ofType: "identity.unlinked").first)
            #expect(unlinked.userID == owner.userID)
            #expect(unlinked.provider == "github")
            // GitHub is free again: signing in with it makes a new user.
            let again = try await harness.post("/v1/signin/github", harness.githubProof()).signedIn()
            #expect(again.isNewUser)
            #expect(again.userID != owner.userID)
        }
    }

    @Test func aSecondProviderWithTheSameEmailMeetsAccountExists() async throws {
        try await ServerHarness.run { harness in
            let apple = try await harness.signInWithApple(email: "g@gmail.com")
            let answer = try await harness.post("/v1/signin/google", try harness.googleProof(email: "g@gmail.com"))
            #expect(answer.status == 409)
            #expect(answer.string("error") == "account_exists")
            #expect(answer.json["providers"] == .array([.string("apple")]))
            let failed = try #require(try await harness.events(ofType: "signin.failed").last)
            #expect(failed.reason == "account_exists")
            #expect(failed.provider == "google")
            #expect(try await harness.count("SELECT count(*) FROM authlog.users") == 1)
            // Emails are kept only as keyed hashes.
            let stored = try await harness.count(
                "SELECT count(*) FROM authlog.user_emails WHERE email_hash LIKE '%gmail%' OR email_hash = 'g@gmail.com'"
            )
            #expect(stored == 0)
            #expect(
                try await harness.count("SELECT count(*) FROM authlog.user_emails WHERE user_id = \(apple.userID)") == 1
            )
        }
    }
}
