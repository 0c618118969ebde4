import AuthlogAccounts
import AuthlogCore
import AuthlogCrypto
import AuthlogProviders
import Foundation
import Testing

/// What SigninService does with Apple's answers: the grant credential kept sealed, the first-time name kept as
/// display data, the provider's refusals and its nonce check recorded.
struct AppleSigninTests {
    @Test func theAppleRefreshTokenIsKeptSealedAndTheNameAsDisplayData() async throws {
        let rules = try RuleHarness()
        rules.apple.accept(
            "001234.apple-user",
            email: "a@privaterelay.appleid.com",
            credential: "apple-refresh-1",
            displayName: "Jane Appleseed"
        )
        let signin = try await rules.signIn(with: "apple", "001234.apple-user")
        let registered = try #require(rules.events(.userRegistered).first)
        let subjectHash = try #require(registered.data["subject_hash"]?.stringValue)

        // The Apple refresh token is stored sealed under the data key, bound to the identity.
        let sealed = try #require(
            try await rules.stores.credentials.sealed(provider: "apple", subjectHash: subjectHash)
        )
        #expect(!String(decoding: sealed, as: UTF8.self).contains("apple-refresh-1"))
        let opened = try AESGCM.open(
            try AESGCM.SealedBox(combined: sealed),
            key: RuleHarness.dataKey,
            authenticating: Array("authlog.provider_credential.v2\u{0}apple\u{0}\(subjectHash)".utf8)
        )
        let credential = try JSONParser().parse(opened)
        #expect(credential["credential"]?.stringValue == "apple-refresh-1")
        #expect(credential["client_id"]?.stringValue == "apple-client")

        // The name is kept as display data, sealed with the user's own key; the token's email wins.
        let sealedProfile = try #require(registered.data["sealed_profile"]?.stringValue)
        #expect(!rules.stores.events.events.map(\.data.canonicalText).joined().contains("Jane"))
        let vault = PersonalDataVault(dataKey: RuleHarness.dataKey, keys: rules.stores.userKeys)
        let profile = try #require(try await vault.openProfile(sealedProfile, for: signin.userID))
        #expect(profile["display_name"]?.stringValue == "Jane Appleseed")
        #expect(profile["email"]?.stringValue == "a@privaterelay.appleid.com")
        // Erasing the user's key makes it unreadable.
        try await rules.stores.userKeys.destroy(for: signin.userID)
        #expect(try await vault.openProfile(sealedProfile, for: signin.userID) == nil)
    }

    @Test func aProofAppleRefusesIsAFailedSignInAndStoresNoCredential() async throws {
        let rules = try RuleHarness()
        rules.apple.refuse(
            "001234.apple-user",
            with: ProviderError(.subjectMismatch, "the exchanged code belongs to another user")
        )
        let refusal = await #expect(throws: ServiceError.self) {
            try await rules.signIn(with: "apple", "001234.apple-user")
        }
        #expect(refusal?.status.code == 401)
        #expect(refusal?.code == "subject_mismatch")
        #expect(rules.eventTypes == [.signinFailed])
        #expect(rules.events(.signinFailed).first?.reason == "subject_mismatch")
        #expect(rules.events(.userRegistered).isEmpty)
    }

    @Test func theNonceCheckApplesAnswerCarriesIsRecorded() async throws {
        let rules = try RuleHarness()
        rules.apple.refuse("no-nonce", with: ProviderError(.nonceMissing, "a code exchange is needed"))
        let refusal = await #expect(throws: ServiceError.self) { try await rules.signIn(with: "apple", "no-nonce") }
        #expect(refusal?.code == "nonce_missing")
        rules.apple.accept("001234.apple-user", nonceCheck: .notSupported)
        _ = try await rules.signIn(with: "apple", "001234.apple-user")
        let succeeded = try #require(rules.events(.signinSucceeded).first)
        #expect(succeeded.data["nonce_check"]?.stringValue == "not_supported")
    }
}
