/// What the app proves at sign-in (or re-authentication, or linking): the provider and the members of the
/// body of `POST /v1/signin/{provider}`.
///
/// Make one with the factory for the provider; ``description`` names the provider and the kind of proof, never
/// a token or code.
public struct SigninProof: Sendable, CustomStringConvertible {
    /// authlog's provider name: `apple`, `google`, `gitlab`, `kakao`, `github`, `firebase`, an OIDC name, `dev`.
    public let provider: String
    /// The body members.
    let members: [String: BodyValue]

    /// A proof for `provider` with its raw body members (for a configured generic OIDC provider).
    init(provider: String, members: [String: BodyValue]) {
        self.provider = provider
        self.members = members
    }

    /// Sign in with Apple: the identity token, the raw nonce whose hash the app set on the request, the
    /// authorization code (so that authlog can revoke the grant when the account is deleted), and the name
    /// Apple gives on the first sign-in only.
    /// - Parameters:
    ///   - identityToken: `ASAuthorizationAppleIDCredential.identityToken` as UTF-8 text.
    ///   - nonce: the nonce whose ``AppleNonce/hashed`` value was the request's `nonce`.
    ///   - authorizationCode: `ASAuthorizationAppleIDCredential.authorizationCode` as UTF-8 text.
    ///   - user: `fullName` and `email`, when Apple gave them.
    /// - Returns: the proof for `POST /v1/signin/apple`.
    public static func apple(
        identityToken: String,
        nonce: AppleNonce,
        authorizationCode: String? = nil,
        user: AppleUserName? = nil
    ) -> SigninProof {
        var members: [String: BodyValue] = ["id_token": .string(identityToken), "raw_nonce": .string(nonce.rawValue)]
        if let code = authorizationCode { members["authorization_code"] = .string(code) }
        if let user, !user.isEmpty { members["user"] = user.bodyValue }
        return SigninProof(provider: "apple", members: members)
    }

    /// An OpenID Connect ID token from Google, Kakao, GitLab or a generic OIDC `provider`, with the raw nonce
    /// the app gave the provider's SDK, if any.
    public static func idToken(_ idToken: String, rawNonce: String? = nil, provider: String) -> SigninProof {
        var members: [String: BodyValue] = ["id_token": .string(idToken)]
        if let rawNonce { members["raw_nonce"] = .string(rawNonce) }
        return SigninProof(provider: provider, members: members)
    }

    /// Google Sign-In's ID token (`GIDGoogleUser.idToken.tokenString`).
    public static func google(idToken: String, rawNonce: String? = nil) -> SigninProof {
        .idToken(idToken, rawNonce: rawNonce, provider: "google")
    }

    /// Firebase Authentication's ID token (`User.getIDToken()`), whatever provider signed the user in to Firebase.
    public static func firebase(idToken: String) -> SigninProof {
        .idToken(idToken, provider: "firebase")
    }

    /// Kakao Login's OpenID Connect ID token (`OAuthToken.idToken`) and the raw nonce given to `loginWithKakaoTalk`.
    public static func kakao(idToken: String, rawNonce: String) -> SigninProof {
        .idToken(idToken, rawNonce: rawNonce, provider: "kakao")
    }

    /// Kakao Login's access token (`OAuthToken.accessToken`), for apps without OpenID Connect enabled.
    public static func kakao(accessToken: String) -> SigninProof {
        SigninProof(provider: "kakao", members: ["access_token": .string(accessToken)])
    }

    /// An authorization code from GitHub, GitLab or a generic OIDC `provider`'s authorization page, opened with
    /// `pkce.challenge` (S256), and the redirect URI the page was opened with.
    public static func authorizationCode(
        _ code: String,
        pkce: PKCE,
        redirectURI: String?,
        provider: String
    ) -> SigninProof {
        var members: [String: BodyValue] = [
            "authorization_code": .string(code), "code_verifier": .string(pkce.verifier),
        ]
        if let redirectURI { members["redirect_uri"] = .string(redirectURI) }
        return SigninProof(provider: provider, members: members)
    }

    /// GitHub's authorization code (the app's OAuth flow, with PKCE).
    public static func github(code: String, pkce: PKCE, redirectURI: String? = nil) -> SigninProof {
        .authorizationCode(code, pkce: pkce, redirectURI: redirectURI, provider: "github")
    }

    /// GitLab's authorization code (the app's OAuth flow, with PKCE).
    public static func gitlab(code: String, pkce: PKCE, redirectURI: String) -> SigninProof {
        .authorizationCode(code, pkce: pkce, redirectURI: redirectURI, provider: "gitlab")
    }

    /// The `dev` provider of a server in development mode: any subject, no proof.
    public static func dev(subject: String) -> SigninProof {
        SigninProof(provider: "dev", members: ["subject": .string(subject)])
    }

    /// The provider and the names of the members, without their values.
    public var description: String {
        "SigninProof(\(self.provider): \(self.members.keys.sorted().joined(separator: ", ")))"
    }
}
