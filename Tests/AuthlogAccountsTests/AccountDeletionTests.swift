import AuthlogAccounts
import AuthlogCore
import AuthlogProviders
import Foundation
import Testing

/// Deleting an account, decided by AccountService, AccountDeletion and ProviderRevoker: sessions and token families
/// end, provider grants are revoked (or queued and retried), identities are released and the data key is destroyed.
struct AccountDeletionTests {
    @Test func deletionRevokesTheGrantsEndsEverythingAndASecondSignInIsANewUser() async throws {
        let rules = try RuleHarness()
        let apple = try await rules.signInWithApple(credential: "apple-refresh-delete")
        let other = try await rules.signInWithApple()
        rules.github.accept("583231", email: "octo@example.com", credential: "gho_delete")
        try await rules.accounts.link(
            bearer: apple.accessToken,
            provider: "github",
            proof: SigninProof(subject: "583231"),
            metadata: RuleHarness.request
        )
        let oldRegistration = try #require(rules.events(.userRegistered).first)
        let appleHash = try #require(oldRegistration.data["subject_hash"]?.stringValue)
        #expect(try await rules.stores.credentials.sealed(provider: "apple", subjectHash: appleHash) != nil)
        #expect(try await rules.stores.userKeys.wrappedKey(for: apple.userID) != nil)

        let results = try await rules.accounts.deleteAccount(bearer: apple.accessToken, metadata: RuleHarness.request)
        #expect(results == ["apple": .revoked, "github": .revoked])
        // Each provider got the grant credential stored (sealed) at sign-in or link.
        #expect(rules.apple.revokedCredentials == ["apple-refresh-delete"])
        #expect(rules.github.revokedCredentials == ["gho_delete"])

        // One event each: sessions revoked, both attempts, the deletion with its results.
        let revoked = rules.events(.sessionRevoked)
        #expect(Set(revoked.compactMap(\.sessionID)) == [apple.sessionID, other.sessionID])
        #expect(revoked.allSatisfy { $0.reason == "account_deleted" })
        let attempts = rules.events(.providerRevocationAttempted)
        #expect(Set(attempts.compactMap(\.provider)) == ["apple", "github"])
        #expect(attempts.allSatisfy { $0.outcome == .success && $0.data["attempt"] == .number("1") })
        let deleted = try #require(rules.events(.accountDeleted).first)
        #expect(deleted.userID == apple.userID)
        #expect(deleted.data["provider_revocations"]?["apple"]?.stringValue == "revoked")

        // Nothing of the user works any more.
        #expect(try await rules.refreshes(apple.refreshToken) == false)
        #expect(try await rules.refreshes(other.refreshToken) == false)
        #expect(try await rules.tokens.introspect(other.accessToken) == .object([("active", .bool(false))]))
        #expect(try await rules.stores.userKeys.wrappedKey(for: apple.userID) == nil)
        #expect(try await rules.stores.credentials.sealed(provider: "apple", subjectHash: appleHash) == nil)
        // Personal data sealed in the old events can no longer be opened.
        let vault = PersonalDataVault(dataKey: RuleHarness.dataKey, keys: rules.stores.userKeys)
        let sealed = try #require(oldRegistration.data["sealed_profile"]?.stringValue)
        #expect(try await vault.openProfile(sealed, for: apple.userID) == nil)
        let shown = try await vault.readableProfile(sealed, for: apple.userID)
        #expect(!shown.isEmpty && shown.allSatisfy { $0.value == PersonalDataVault.erased })

        // The same Apple ID signs in again: a new user, tied to the old one by nothing stored.
        let again = try await rules.signInWithApple()
        #expect(again.isNewUser)
        #expect(again.userID != apple.userID)
        let newRegistration = try #require(rules.events(.userRegistered).last)
        #expect(newRegistration.userID == again.userID)
        #expect(newRegistration.data["subject_hash"] != oldRegistration.data["subject_hash"])
        let newEvents = rules.stores.events.events.filter { $0.userID == again.userID }
        let oldID = apple.userID.lowercased
        #expect(newEvents.allSatisfy { !$0.data.canonicalText.contains(oldID) && !$0.stream.rawValue.contains(oldID) })
        #expect(try await rules.refreshes(apple.refreshToken) == false)
    }

    @Test func theDeletedUsersEmailsAreForgotten() async throws {
        let rules = try RuleHarness()
        let apple = try await rules.signInWithApple(email: "g@gmail.com")
        rules.google.accept("1098765432", email: "g@gmail.com")
        let before = await #expect(throws: ServiceError.self) { try await rules.signIn(with: "google", "1098765432") }
        #expect(before?.code == "account_exists")
        _ = try await rules.accounts.deleteAccount(bearer: apple.accessToken, metadata: RuleHarness.request)
        let google = try await rules.signIn(with: "google", "1098765432")
        #expect(google.isNewUser)
    }

    @Test func everyRegistrationAfterADeletionIsANewUserUnderTheNextGeneration() async throws {
        let rules = try RuleHarness()
        var users: [UUID] = []
        for _ in 0..<3 {
            let session = try await rules.signIn("returning")
            #expect(session.isNewUser)
            users.append(session.userID)
            _ = try await rules.accounts.deleteAccount(bearer: session.accessToken, metadata: RuleHarness.request)
        }
        #expect(Set(users).count == 3)
        let hashes = rules.events(.userRegistered).compactMap { $0.data["subject_hash"]?.stringValue }
        #expect(hashes.count == 3 && Set(hashes).count == 3)
        // Still one user at a time: the identity of the fourth registration is its only live one.
        let fourth = try await rules.signIn("returning")
        #expect(fourth.isNewUser)
        #expect(try await rules.signIn("returning").userID == fourth.userID)
    }

    @Test func deletionNeedsARecentAuthentication() async throws {
        let rules = try RuleHarness()
        let session = try await rules.signIn("alice")
        let refusal = await #expect(throws: ServiceError.self) {
            try await rules.agedAccounts.deleteAccount(bearer: session.accessToken, metadata: RuleHarness.request)
        }
        #expect(refusal?.status.code == 401)
        #expect(refusal?.code == "reauthentication_required")
        #expect(rules.events(.accountActionRefused).first?.data["action"]?.stringValue == "delete_account")
        #expect(rules.events(.accountDeleted).isEmpty)
        #expect(try await rules.refreshes(session.refreshToken))
    }

    @Test func appleDownDoesNotBlockTheDeletionAndTheRevocationIsRetriedOnceItIsBack() async throws {
        let rules = try RuleHarness()
        let apple = try await rules.signInWithApple(credential: "apple-refresh-down")
        rules.apple.failRevocations(with: ProviderError(.providerUnavailable, "Apple is down"))
        let results = try await rules.accounts.deleteAccount(bearer: apple.accessToken, metadata: RuleHarness.request)
        #expect(results == ["apple": .queued])
        #expect(try await rules.refreshes(apple.refreshToken) == false)
        #expect(rules.events(.accountDeleted).count == 1)

        // Not due yet: nothing is retried.
        #expect(try await rules.revoker.retryDue() == 0)
        rules.apple.failRevocations(with: nil)
        #expect(try await rules.revoker.retryDue(at: .now().adding(seconds: 3_600)) == 1)
        #expect(try await rules.revoker.retryDue(at: .now().adding(seconds: 7_200)) == 0)

        #expect(rules.apple.revokedCredentials == ["apple-refresh-down", "apple-refresh-down"])
        let attempts = rules.events(.providerRevocationAttempted)
        #expect(attempts.map(\.outcome) == [.failure, .success])
        #expect(attempts.map { $0.data["result"]?.stringValue } == ["queued", "revoked"])
        #expect(attempts.map { $0.data["attempt"] } == [.number("1"), .number("2")])
    }

    @Test func deletionWhileARefreshIsInFlightLeavesNoLiveToken() async throws {
        let rules = try RuleHarness()
        for round in 0..<5 {
            let session = try await rules.signIn("racer-\(round)")
            async let refreshed = try? rules.tokens.refresh(session.refreshToken, metadata: RuleHarness.request)
            async let deleted = rules.accounts.deleteAccount(bearer: session.accessToken, metadata: RuleHarness.request)
            let (refresh, _) = try await (refreshed, deleted)
            // Whichever committed first, a token the refresh handed out is dead.
            if let refresh {
                #expect(try await rules.refreshes(refresh.refreshToken) == false)
                #expect(try await rules.isActive(refresh.accessToken) == false)
            }
            #expect(try await rules.stores.sessions.activeSessions(of: session.userID, provider: nil).isEmpty)
            #expect(try await rules.stores.sessions.session(session.sessionID)?.state != .active)
        }
    }
}
