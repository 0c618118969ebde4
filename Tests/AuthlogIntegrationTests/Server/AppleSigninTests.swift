import AuthlogAccounts
import AuthlogCore
import AuthlogCrypto
import AuthlogPostgres
import AuthlogServer
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

/// Apple specifics: code exchange with the stored (sealed) Apple refresh token, the first-time name,
/// and `nonce_supported: false`.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct AppleSigninTests {
    /// An authorization code whose exchange at the fake Apple returns an identity token for `subject`.
    static func registerCode(_ code: String, subject: String, on harness: ServerHarness) {
        harness.providers.apple.registerCode(
            code,
            idTokenClaims: FakeIdentityProvider.claims(
                issuer: Fixture.appleIssuer,
                audience: .string(Fixture.appleClient),
                subject: subject
            )
        )
    }

    @Test func codeExchangeKeepsTheAppleRefreshTokenSealedAndTheNameAsDisplayData() async throws {
        try await ServerHarness.run { harness in
            let proofs = ProofMaker(providers: harness.providers)
            let raw = ProofMaker.rawNonce()
            Self.registerCode("apple-code-1", subject: "001234.apple-user", on: harness)
            let answer = try await harness.post(
                "/v1/signin/apple",
                .members([
                    "id_token": .string(try proofs.appleIDToken(rawNonce: raw)), "raw_nonce": .string(raw),
                    "authorization_code": "apple-code-1",
                    "user": .string(
                        #"{"name":{"firstName":"Jane","lastName":"Appleseed"},"email":"ignored@example.com"}"#
                    ),
                ])
            )
            #expect(answer.status == 200)
            let userID = try #require(answer.string("user_id").flatMap(UUID.init(uuidString:)))

            // The Apple refresh token is stored sealed under the data key, bound to the identity.
            let row = try #require(
                try await harness.database.connect().query(
                    "SELECT subject_hash, sealed_token FROM authlog.provider_credentials WHERE provider = 'apple'"
                ).first
            )
            let subjectHash = try row.decode(String.self, at: 0)
            let sealed = try row.decode(ByteaValue.self, at: 1).bytes
            #expect(!String(decoding: sealed, as: UTF8.self).contains("fake-provider-refresh"))
            let opened = try AESGCM.open(
                try AESGCM.SealedBox(combined: sealed),
                key: Fixture.dataKey,
                authenticating: Array("authlog.provider_credential.v2\u{0}apple\u{0}\(subjectHash)".utf8)
            )
            let credential = try JSONParser().parse(opened)
            #expect(credential["credential"]?.stringValue == "fake-provider-refresh-apple-code-1")
            #expect(credential["client_id"]?.stringValue == Fixture.appleClient)

            // The name is kept as display data, sealed with the user's own key; the token's email wins.
            let registered = try #require(try await harness.events().first { $0.type == "user.registered" })
            let sealedProfile = try #require(registered.data["sealed_profile"]?.stringValue)
            #expect(!registered.data.canonicalText.contains("Jane"))
            let vault = PersonalDataVault(
                dataKey: Fixture.dataKey,
                keys: UserKeyStore(pool: ConnectionPool(conninfo: harness.database.conninfo))
            )
            let profile = try #require(try await vault.openProfile(sealedProfile, for: userID))
            #expect(profile["display_name"]?.stringValue == "Jane Appleseed")
            #expect(profile["email"]?.stringValue == "a@privaterelay.appleid.com")
            // Erasing the user's key makes it unreadable; the log still verifies.
            _ = try await harness.database.connect().query("DELETE FROM authlog.user_keys WHERE user_id = \(userID)")
            #expect(try await vault.openProfile(sealedProfile, for: userID) == nil)
            guard try await harness.chainIsIntact() else {
                Issue.record("the log no longer verifies after erasure")
                return
            }
        }
    }

    @Test func exchangedCodeOfAnotherUserIsRefused() async throws {
        try await ServerHarness.run { harness in
            let raw = ProofMaker.rawNonce()
            Self.registerCode("apple-code-2", subject: "someone-else", on: harness)
            let answer = try await harness.post(
                "/v1/signin/apple",
                .members([
                    "id_token": .string(try ProofMaker(providers: harness.providers).appleIDToken(rawNonce: raw)),
                    "raw_nonce": .string(raw), "authorization_code": "apple-code-2",
                ])
            )
            #expect(answer.status == 401)
            #expect(answer.string("error") == "subject_mismatch")
            #expect(try await harness.count("SELECT count(*) FROM authlog.provider_credentials") == 0)
        }
    }

    @Test func tokenWithoutNonceSupportNeedsACodeExchange() async throws {
        try await ServerHarness.run { harness in
            let proofs = ProofMaker(providers: harness.providers)
            let token = try proofs.appleIDToken(rawNonce: nil, extra: [("nonce_supported", .bool(false))])
            let refused = try await harness.post("/v1/signin/apple", .members(["id_token": .string(token)]))
            #expect(refused.string("error") == "nonce_missing")
            Self.registerCode("apple-code-3", subject: "001234.apple-user", on: harness)
            let accepted = try await harness.post(
                "/v1/signin/apple",
                .members(["id_token": .string(token), "authorization_code": "apple-code-3"])
            )
            #expect(accepted.status == 200)
            let succeeded = try #require(try await harness.events().first { $0.type == "signin.succeeded" })
            #expect(succeeded.data["nonce_check"]?.stringValue == "not_supported")
        }
    }
}
