import AuthlogCore
import AuthlogServer
import AuthlogTesting
import Foundation
import Testing

/// `POST /v1/me/credential-state`: what the app's `getCredentialState` said.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct CredentialStateTests {
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
