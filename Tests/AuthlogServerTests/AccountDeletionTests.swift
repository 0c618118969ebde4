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

    @Test func everyRegistrationAfterADeletionIsANewUserUnderTheNextGeneration() async throws {
        try await ServerHarness.run { harness in
            var users: [UUID] = []
            for _ in 0..<3 {
                let session = try await harness.signInDev("returning")
                #expect(session.isNewUser)
                users.append(session.userID)
                #expect(try await harness.send("DELETE", "/v1/me", as: session).status == 202)
            }
            #expect(Set(users).count == 3)
            let hashes = try await harness.events(ofType: "user.registered").compactMap {
                $0.data["subject_hash"]?.stringValue
            }
            #expect(hashes.count == 3 && Set(hashes).count == 3)
            #expect(
                try await harness.count("SELECT count(*) FROM authlog.identities WHERE released_at IS NOT NULL") == 3
            )
            // Still one user at a time: the identity of the fourth registration is its only live row.
            let fourth = try await harness.signInDev("returning")
            #expect(try await harness.signInDev("returning").userID == fourth.userID)
            #expect(try await harness.chainIsIntact())
        }
    }

    @Test func deletionNeedsARecentAuthentication() async throws {
        try await ServerHarness.run { harness in
            let session = try await harness.signInDev()
            try await harness.ageAuthentication(of: session)
            let answer = try await harness.send("DELETE", "/v1/me", as: session)
            #expect(answer.status == 401)
            #expect(answer.string("error") == "reauthentication_required")
            #expect(
                try await harness.events(ofType: "account.action_refused").first?.data["action"] == "delete_account"
            )
            #expect(try await harness.events(ofType: "account.deleted").isEmpty)
            #expect(try await harness.refresh(session.refreshToken).status == 200)
        }
    }

    @Test func appleDownDoesNotBlockTheDeletionAndTheRevocationIsRetriedOnceItIsBack() async throws {
        try await ServerHarness.run { harness in
            let apple = try await harness.signInWithApple(code: "apple-code-down")
            harness.providers.apple.setFailure(.down, forPath: "/auth/revoke")
            let answer = try await harness.send("DELETE", "/v1/me", as: apple)
            #expect(answer.status == 202)
            #expect(answer.json["provider_revocations"] == .object([("apple", "queued")]))
            #expect(try await harness.refresh(apple.refreshToken).status == 401)
            #expect(try await harness.events(ofType: "account.deleted").count == 1)

            // Not due yet: nothing is retried.
            let revoker = harness.components.revoker
            #expect(try await revoker.retryDue() == 0)
            harness.providers.apple.setFailure(nil, forPath: "/auth/revoke")
            #expect(try await revoker.retryDue(at: .now().adding(seconds: 3_600)) == 1)
            #expect(try await revoker.retryDue(at: .now().adding(seconds: 7_200)) == 0)

            let calls = harness.providers.apple.calls(to: "/auth/revoke")
            #expect(calls.count == 2)
            #expect(calls.allSatisfy { $0.fields["token"] == "fake-provider-refresh-apple-code-down" })
            let attempts = try await harness.events(ofType: "provider.revocation_attempted")
            #expect(attempts.map(\.outcome) == ["failure", "success"])
            #expect(attempts.map { $0.data["result"] } == ["queued", "revoked"])
            #expect(attempts.map { $0.data["attempt"] } == [.number("1"), .number("2")])
            #expect(
                try await harness.count("SELECT count(*) FROM authlog.provider_revocations WHERE state = 'revoked'")
                    == 1
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
