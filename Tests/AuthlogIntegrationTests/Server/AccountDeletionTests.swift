import AuthlogAccounts
import AuthlogCore
import AuthlogPostgres
import AuthlogServer
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

/// `DELETE /v1/me`: sessions and token families end, provider grants are revoked (or queued and retried),
/// identities are released, the data key is destroyed, and the log still verifies.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct AccountDeletionTests {
    @Test func deletionRevokesTheGrantsEndsEverythingAndASecondSignInIsANewUser() async throws {
        try await ServerHarness.run { harness in
            let apple = try await harness.signInWithApple(code: "apple-code-delete")
            let other = try await harness.signInWithApple()
            #expect(
                try await harness.send("POST", "/v1/me/identities/github", harness.githubProof(), as: apple).status
                    == 200
            )
            let oldRegistration = try #require(try await harness.events(ofType: "user.registered").first)

            let answer = try await harness.send("DELETE", "/v1/me", as: apple)
            #expect(answer.status == 202)
            #expect(answer.json["provider_revocations"] == .object([("apple", "revoked"), ("github", "revoked")]))

            // Apple got the stored refresh token with a fresh client secret; GitHub's grant was deleted.
            let revoke = try #require(harness.providers.apple.calls(to: "/auth/revoke").first)
            #expect(revoke.fields["token"] == "fake-provider-refresh-apple-code-delete")
            #expect(revoke.fields["token_type_hint"] == "refresh_token")
            #expect(revoke.fields["client_id"] == Fixture.appleClient)
            #expect(revoke.fields["client_secret"]?.split(separator: ".").count == 3)
            #expect(harness.providers.github.calls(to: "/applications/\(Fixture.githubClient)/grant").count == 1)

            // One event each: sessions revoked, both attempts, the deletion with its results.
            let revoked = try await harness.events(ofType: "session.revoked")
            #expect(Set(revoked.compactMap(\.sessionID)) == [apple.sessionID, other.sessionID])
            #expect(revoked.allSatisfy { $0.reason == "account_deleted" })
            let attempts = try await harness.events(ofType: "provider.revocation_attempted")
            #expect(Set(attempts.compactMap(\.provider)) == ["apple", "github"])
            #expect(attempts.allSatisfy { $0.outcome == "success" && $0.data["attempt"] == .number("1") })
            let deleted = try #require(try await harness.events(ofType: "account.deleted").first)
            #expect(deleted.userID == apple.userID)
            #expect(deleted.data["provider_revocations"]?["apple"] == "revoked")

            // Nothing of the user works any more.
            #expect(try await harness.refresh(apple.refreshToken).status == 401)
            #expect(try await harness.refresh(other.refreshToken).status == 401)
            #expect(try await harness.introspect(other.accessToken) == .object([("active", .bool(false))]))
            #expect(try await harness.count("SELECT count(*) FROM authlog.user_keys") == 0)
            #expect(try await harness.count("SELECT count(*) FROM authlog.user_emails") == 0)
            #expect(try await harness.count("SELECT count(*) FROM authlog.provider_credentials") == 0)
            // Personal data sealed in the old events can no longer be opened.
            let vault = PersonalDataVault(
                dataKey: Fixture.dataKey,
                keys: UserKeyStore(pool: ConnectionPool(conninfo: harness.database.conninfo))
            )
            let sealed = try #require(oldRegistration.data["sealed_profile"]?.stringValue)
            #expect(try await vault.openProfile(sealed, for: apple.userID) == nil)
            let shown = try await vault.readableProfile(sealed, for: apple.userID)
            #expect(!shown.isEmpty && shown.allSatisfy { $0.value == PersonalDataVault.erased })

            // The same Apple ID signs in again: a new user, tied to the old one by nothing stored.
            let again = try await harness.signInWithApple()
            #expect(again.isNewUser)
            #expect(again.userID != apple.userID)
            let newRegistration = try #require(try await harness.events(ofType: "user.registered").last)
            #expect(newRegistration.userID == again.userID)
            #expect(newRegistration.data["subject_hash"] != oldRegistration.data["subject_hash"])
            let newEvents = try await harness.events().filter { $0.userID == again.userID }
            let oldID = apple.userID.lowercased
            #expect(newEvents.allSatisfy { !$0.data.canonicalText.contains(oldID) && !$0.stream.contains(oldID) })
            #expect(try await harness.refresh(apple.refreshToken).status == 401)

            // The log still verifies and the report still counts the old sign-ins.
            #expect(try await harness.chainIsIntact())
            #expect(
                try await harness.count(
                    "SELECT coalesce(sum(signins), 0)::bigint FROM authlog.signins_daily WHERE provider = 'apple' AND outcome = 'success'"
                ) == 3
            )
        }
    }

    @Test func deletionWhileARefreshIsInFlightLeavesNoLiveToken() async throws {
        try await ServerHarness.run { harness in
            for round in 0..<5 {
                let session = try await harness.signInDev("racer-\(round)")
                async let refreshed = harness.refresh(session.refreshToken)
                async let deleted = harness.send("DELETE", "/v1/me", as: session)
                let (refresh, deletion) = try await (refreshed, deleted)
                #expect(deletion.status == 202)
                // Whichever committed first, a token the refresh handed out is dead.
                if let token = refresh.string("refresh_token") {
                    #expect(try await harness.refresh(token).status == 401)
                }
                #expect(
                    try await harness.count(
                        "SELECT count(*) FROM authlog.refresh_tokens WHERE user_id = \(session.userID) AND state = 'active'"
                    ) == 0
                )
                #expect(
                    try await harness.count(
                        "SELECT count(*) FROM authlog.sessions WHERE user_id = \(session.userID) AND state = 'active'"
                    ) == 0
                )
            }
            #expect(try await harness.chainIsIntact())
        }
    }
}
