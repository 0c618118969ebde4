import AuthlogCore
import AuthlogCrypto
import AuthlogTesting
import Foundation

/// Builds valid sign-in bodies for each provider, signed by the harness's fake providers.
struct ProofMaker {
    let providers: FakeProviders

    /// A fresh random raw nonce.
    static func rawNonce() -> String { UUID().uuidString + UUID().uuidString }

    func appleIDToken(
        subject: String = "001234.apple-user",
        rawNonce: String? = nil,
        extra: [(name: String, value: JSONValue)] = [
            ("email", .string("a@privaterelay.appleid.com")), ("email_verified", .string("true")),
        ],
        adjust: (inout [(name: String, value: JSONValue)]) -> Void = { _ in }
    ) throws -> String {
        var claims = FakeIdentityProvider.claims(
            issuer: Fixture.appleIssuer,
            audience: .string(Fixture.appleClient),
            subject: subject,
            nonce: rawNonce.map { Hex.encode(SHA256.hash(Array($0.utf8))) },
            extra: extra
        )
        adjust(&claims)
        return try self.providers.apple.sign(claims)
    }

    func googleIDToken(
        subject: String = "1098765432",
        nonce: String? = nil,
        adjust: (inout [(name: String, value: JSONValue)]) -> Void = { _ in }
    ) throws -> String {
        var claims = FakeIdentityProvider.claims(
            issuer: "https://accounts.google.com",
            audience: .string(Fixture.googleClient),
            subject: subject,
            nonce: nonce,
            extra: [("email", .string("g@gmail.com")), ("email_verified", .bool(true))]
        )
        adjust(&claims)
        return try self.providers.google.sign(claims)
    }

    /// The sign-in body of a first, valid sign-in for `provider` (one proof kind each), and the provider's route name.
    func validBody(for provider: String) throws -> JSONValue {
        switch provider {
        case "apple":
            let raw = Self.rawNonce()
            return .members(["id_token": .string(try self.appleIDToken(rawNonce: raw)), "raw_nonce": .string(raw)])
        case "google":
            let raw = Self.rawNonce()
            return .members(["id_token": .string(try self.googleIDToken(nonce: raw)), "raw_nonce": .string(raw)])
        case "gitlab":
            let code = "gitlab-code-\(UUID().uuidString)"
            self.providers.gitlab.registerCode(
                code,
                idTokenClaims: FakeIdentityProvider.claims(
                    issuer: self.providers.gitlab.baseURL,
                    audience: .string(Fixture.gitlabClient),
                    subject: "4242",
                    lifetime: 120,
                    extra: [("email", .string("gl@example.com")), ("email_verified", .bool(true))]
                )
            )
            return .members([
                "authorization_code": .string(code), "code_verifier": .string(String(repeating: "v", count: 43)),
                "redirect_uri": .string("com.example.app:/oauth"),
            ])
        case "kakao":
            let raw = Self.rawNonce()
            let token = try self.providers.kakao.sign(
                FakeIdentityProvider.claims(
                    issuer: "https://kauth.kakao.com",
                    audience: .string(Fixture.kakaoAppKey),
                    subject: "3141592653",
                    nonce: raw,
                    lifetime: 21_600
                )
            )
            return .members(["id_token": .string(token), "raw_nonce": .string(raw)])
        case "github":
            let code = "gh-code-\(UUID().uuidString)"
            self.providers.github.registerCode(code, idTokenClaims: [])
            self.providers.github.registerAccessToken(
                "gho_\(code)",
                for: .init(id: 583231, appID: Fixture.githubClient, email: "octo@example.com")
            )
            return .members([
                "authorization_code": .string(code), "code_verifier": .string(String(repeating: "g", count: 43)),
            ])
        case "firebase":
            let issuer = "https://securetoken.google.com/\(Fixture.firebaseProject)"
            let token = try self.providers.firebase.sign(
                FakeIdentityProvider.claims(
                    issuer: issuer,
                    audience: .string(Fixture.firebaseProject),
                    subject: "firebase-uid-1",
                    lifetime: 3600,
                    extra: [
                        ("user_id", .string("firebase-uid-1")),
                        ("firebase", .members(["sign_in_provider": .string("github.com")])),
                    ]
                )
            )
            return .members(["id_token": .string(token)])
        default:
            return .members(["subject": .string("alice")])
        }
    }
}
