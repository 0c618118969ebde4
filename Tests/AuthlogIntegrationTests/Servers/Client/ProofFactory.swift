import AuthlogClient
import AuthlogCore
import AuthlogTesting
import Foundation

/// Provider proofs signed by the test server's fake provider, as the providers' SDKs would hand them to an app.
struct ProofFactory {
    let server: ClientTestServer

    private var fake: FakeIdentityProvider { self.server.fake }

    /// An Apple identity token for `nonce` (its hashed value in the `nonce` claim) and a registered
    /// authorization code whose exchange names the same subject.
    func apple(
        subject: String = "001234.apple-\(UUID().uuidString.prefix(8))",
        nonce: AppleNonce
    ) throws
        -> (identityToken: String, code: String)
    {
        let claims = FakeIdentityProvider.claims(
            issuer: "https://appleid.apple.com",
            audience: .string(ClientTestServer.appleClient),
            subject: subject,
            nonce: nonce.hashed,
            extra: [("email", .string("a@privaterelay.appleid.com")), ("email_verified", .string("true"))]
        )
        let code = "apple-code-\(UUID().uuidString)"
        self.fake.registerCode(code, idTokenClaims: claims)
        return (try self.fake.sign(claims), code)
    }

    /// A Google ID token with `rawNonce` in its `nonce` claim.
    func google(subject: String = "g-\(UUID().uuidString.prefix(8))", rawNonce: String) throws -> String {
        try self.fake.sign(
            FakeIdentityProvider.claims(
                issuer: "https://accounts.google.com",
                audience: .string(ClientTestServer.googleClient),
                subject: subject,
                nonce: rawNonce
            )
        )
    }

    /// A Firebase ID token (the user signed in to Firebase with GitHub).
    func firebase(subject: String = "fb-\(UUID().uuidString.prefix(8))") throws -> String {
        try self.fake.sign(
            FakeIdentityProvider.claims(
                issuer: "https://securetoken.google.com/\(ClientTestServer.firebaseProject)",
                audience: .string(ClientTestServer.firebaseProject),
                subject: subject,
                lifetime: 3600,
                extra: [
                    ("user_id", .string(subject)),
                    ("firebase", .members(["sign_in_provider": .string("github.com")])),
                ]
            )
        )
    }

    /// A Kakao OpenID Connect ID token with `rawNonce`.
    func kakao(subject: String = "31415\(Int.random(in: 1000...9999))", rawNonce: String) throws -> String {
        try self.fake.sign(
            FakeIdentityProvider.claims(
                issuer: "https://kauth.kakao.com",
                audience: .string(ClientTestServer.kakaoAppKey),
                subject: subject,
                nonce: rawNonce,
                lifetime: 21_600
            )
        )
    }

    /// A GitHub authorization code the fake exchanges for an access token of a new GitHub user.
    func githubCode() -> String {
        let code = "gh-code-\(UUID().uuidString)"
        self.fake.registerCode(code, idTokenClaims: [])
        self.fake.registerAccessToken(
            "gho_\(code)",
            for: .init(id: Int64.random(in: 1...9_000_000), appID: ClientTestServer.githubClient)
        )
        return code
    }

    /// A GitLab authorization code whose exchange returns an ID token.
    func gitlabCode(subject: String = "gl-\(Int.random(in: 1...9_000_000))") -> String {
        let code = "gl-code-\(UUID().uuidString)"
        self.fake.registerCode(
            code,
            idTokenClaims: FakeIdentityProvider.claims(
                issuer: self.fake.baseURL,
                audience: .string(ClientTestServer.gitlabClient),
                subject: subject,
                lifetime: 120
            )
        )
        return code
    }
}
