import AuthlogCore
import AuthlogServer
import AuthlogTesting
import Foundation
import Testing

/// `POST /v1/me/credential-state`: what the app's `getCredentialState` said.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct CredentialStateTests {
    @Test func revokedEndsTheAppleSessionsOnceAndRecordsTheConsentRevocationOnce() async throws {
        try await ServerHarness.run { harness in
            let apple = try await harness.signInWithApple()
            let second = try await harness.signInWithApple()
            let body: JSONValue = .members(["provider": "apple", "state": "revoked"])
            let first = try await harness.send("POST", "/v1/me/credential-state", body, as: apple)
            #expect(first.status == 204)

            #expect(try await harness.refresh(apple.refreshToken).status == 401)
            #expect(try await harness.refresh(second.refreshToken).status == 401)
            #expect(try await harness.introspect(apple.accessToken) == .object([("active", .bool(false))]))
            let consent = try await harness.events(ofType: "provider.consent_revoked")
            #expect(consent.count == 1)
            #expect(consent.first?.data["source"] == "app_credential_state")
            #expect(consent.first?.userID == apple.userID)
            let revoked = try await harness.events(ofType: "session.revoked")
            #expect(Set(revoked.compactMap(\.sessionID)) == [apple.sessionID, second.sessionID])
            #expect(revoked.allSatisfy { $0.reason == "credential_revoked" })

            // The reporting session itself has ended: a repeat is refused as such and records nothing.
            let again = try await harness.send("POST", "/v1/me/credential-state", body, as: apple)
            #expect(again.status == 401)
            #expect(try await harness.events(ofType: "provider.consent_revoked").count == 1)
            #expect(try await harness.events(ofType: "session.revoked").count == 2)
        }
    }

    @Test func revokedTwiceFromASurvivingSessionRecordsNothingTheSecondTime() async throws {
        try await ServerHarness.run { harness in
            let apple = try await harness.signInWithApple()
            let linked = try await harness.send("POST", "/v1/me/identities/github", harness.githubProof(), as: apple)
            #expect(linked.status == 200)
            // A GitHub session of the same user survives the Apple revocation and can report it again.
            let githubSession = try await harness.post("/v1/signin/github", harness.githubProof()).signedIn()
            #expect(githubSession.userID == apple.userID)
            let body: JSONValue = .members(["provider": "apple", "state": "revoked"])
            #expect(try await harness.send("POST", "/v1/me/credential-state", body, as: githubSession).status == 204)
            let before = try await harness.events().count
            #expect(try await harness.send("POST", "/v1/me/credential-state", body, as: githubSession).status == 204)
            #expect(try await harness.events().count == before)
            #expect(try await harness.events(ofType: "provider.consent_revoked").count == 1)
            #expect(try await harness.refresh(githubSession.refreshToken).status == 200)
        }
    }

    @Test func notFoundEndsTheSessionsWithoutAConsentRevocationAndAuthorizedChangesNothing() async throws {
        try await ServerHarness.run { harness in
            let apple = try await harness.signInWithApple()
            let before = try await harness.events().count
            let authorized: JSONValue = .members(["provider": "apple", "state": "authorized"])
            #expect(try await harness.send("POST", "/v1/me/credential-state", authorized, as: apple).status == 204)
            #expect(try await harness.events().count == before)

            let notFound: JSONValue = .members(["provider": "apple", "state": "not_found"])
            #expect(try await harness.send("POST", "/v1/me/credential-state", notFound, as: apple).status == 204)
            #expect(try await harness.events(ofType: "provider.consent_revoked").isEmpty)
            #expect(try await harness.events(ofType: "session.revoked").map(\.reason) == ["credential_not_found"])
            #expect(try await harness.refresh(apple.refreshToken).status == 401)
        }
    }

    @Test func aProviderTheUserHasNoIdentityOfIsRefusedAndRecorded() async throws {
        try await ServerHarness.run { harness in
            let dev = try await harness.signInDev()
            let body: JSONValue = .members(["provider": "apple", "state": "revoked"])
            let answer = try await harness.send("POST", "/v1/me/credential-state", body, as: dev)
            #expect(answer.status == 422)
            #expect(answer.string("error") == "identity_not_linked")
            let refused = try #require(try await harness.events(ofType: "account.action_refused").first)
            #expect(refused.reason == "identity_not_linked")
            #expect(refused.data["action"] == "credential_state")
            let bad: JSONValue = .members(["provider": "apple", "state": "maybe"])
            #expect(try await harness.send("POST", "/v1/me/credential-state", bad, as: dev).status == 400)
            #expect(try await harness.events(ofType: "account.action_refused").count == 2)
        }
    }
}
