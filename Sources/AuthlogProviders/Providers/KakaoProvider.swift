import AuthlogCore
import AuthlogCrypto

/// Kakao Login (providers.md §4): OIDC identity tokens (raw nonce), client-sent access tokens checked
/// with `access_token_info` (the app id must be ours) and `/v2/user/me`, and code exchange.
public struct KakaoProvider: IdentityProvider {
    /// Kakao's endpoints and our app's identifiers.
    public struct Settings: Sendable {
        /// The issuer tokens must name exactly.
        public var issuer = "https://kauth.kakao.com"
        /// The token (code-exchange) endpoint.
        public var tokenURL = "https://kauth.kakao.com/oauth/token"
        /// The access-token information endpoint (`access_token_info`).
        public var tokenInfoURL = "https://kapi.kakao.com/v1/user/access_token_info"
        /// The user endpoint (`/v2/user/me`).
        public var userURL = "https://kapi.kakao.com/v2/user/me"
        /// The numeric app id `access_token_info` must report.
        public var appID: String
        /// The app keys (REST API, native, JavaScript) identity tokens may be issued to.
        public var appKeys: Set<String>
        /// The REST API key's client secret, when enabled.
        public var clientSecret: String?
        /// The app's admin key: unlinks users at account deletion and authenticates Kakao's unlink callback.
        public var adminKey: String?
        /// The unlink endpoint (`/v1/user/unlink`).
        public var unlinkURL = "https://kapi.kakao.com/v1/user/unlink"

        /// Creates settings.
        public init(appID: String, appKeys: Set<String>, clientSecret: String? = nil) {
            self.appID = appID
            self.appKeys = appKeys
            self.clientSecret = clientSecret
        }
    }

    public let name: String
    let settings: Settings
    private let verifier: IDTokenVerifier
    let fetcher: any HTTPFetching

    /// Creates the provider; `keys` caches Kakao's JWKS.
    public init(name: String = "kakao", settings: Settings, keys: JWKSCache, fetcher: any HTTPFetching) {
        self.name = name
        self.settings = settings
        self.fetcher = fetcher
        self.verifier = IDTokenVerifier(
            rules: IDTokenRules(issuers: [settings.issuer], audiences: settings.appKeys),
            keys: keys
        )
    }

    public var keyCache: JWKSCache? { self.verifier.keys }

    public func verify(_ proof: SigninProof) async throws(ProviderError) -> VerifiedIdentity {
        if let idToken = proof.idToken { return try await self.verifyIDToken(idToken, rawNonce: proof.rawNonce) }
        if let accessToken = proof.accessToken { return try await self.verifyAccessToken(accessToken) }
        if let code = proof.authorizationCode {
            let tokens = try await self.exchange(code: code, proof: proof)
            if let idToken = tokens["id_token"]?.stringValue {
                return try await self.verifyIDToken(idToken, rawNonce: proof.rawNonce)
            }
            guard let accessToken = tokens["access_token"]?.stringValue else {
                throw ProviderError(.providerError, "Kakao's token answer has no token")
            }
            return try await self.verifyAccessToken(accessToken)
        }
        throw ProviderError(.unsupportedProof, "Kakao sign-in needs an id_token, access_token or authorization_code")
    }

    private func verifyIDToken(_ idToken: String, rawNonce: String?) async throws(ProviderError) -> VerifiedIdentity {
        let token = try await self.verifier.verify(idToken)
        let nonce = try token.vouching { () throws(ProviderError) in
            try NonceRule.raw.check(tokenNonce: token.nonce, rawNonce: rawNonce)
        }
        return VerifiedIdentity(
            provider: self.name,
            subject: token.subject,
            clientID: token.clientID,
            authTime: token.authTime,
            nonce: nonce.nonce,
            nonceCheck: nonce.check,
            displayName: token.claims["nickname"]?.stringValue,
            revocationCredential: token.subject
        )
    }

    /// Whether Kakao is authoritative for the address: only for its own domain.
    static func isKakaoAddress(_ email: String?) -> Bool {
        email?.lowercased().hasSuffix("@kakao.com") == true
    }

    private func verifyAccessToken(_ accessToken: String) async throws(ProviderError) -> VerifiedIdentity {
        let bearer: [(name: String, value: String)] = [("Authorization", "Bearer \(accessToken)")]
        let info = try await self.fetcher.fetch(OutboundRequest(url: self.settings.tokenInfoURL, headers: bearer))
            .successObject(rejected: .providerError)
        guard let appID = info["app_id"].flatMap(Self.identifier), let tokenUserID = info["id"].flatMap(Self.identifier)
        else { throw ProviderError(.providerError, "access_token_info lacks id or app_id") }
        guard appID == self.settings.appID else {
            throw ProviderError(.appIDMismatch, "the access token was issued to another Kakao app")
        }
        let user = try await self.fetcher.fetch(OutboundRequest(url: self.settings.userURL, headers: bearer))
            .successObject(rejected: .providerError)
        guard let userID = user["id"].flatMap(Self.identifier), userID == tokenUserID else {
            throw ProviderError(.subjectMismatch, "/v2/user/me names another user than the token")
        }
        let account = user["kakao_account"]
        let trusted = account?["is_email_valid"]?.boolValue == true && account?["is_email_verified"]?.boolValue == true
        return VerifiedIdentity(
            provider: self.name,
            subject: userID,
            clientID: appID,
            verifiedEmail: trusted ? account?["email"]?.stringValue : nil,
            emailIsAuthoritative: trusted && Self.isKakaoAddress(account?["email"]?.stringValue),
            displayName: account?["profile"]?["nickname"]?.stringValue,
            revocationCredential: userID
        )
    }

    private func exchange(code: String, proof: SigninProof) async throws(ProviderError) -> AuthlogCore.JSONValue {
        guard let clientID = proof.exchangeClientID(among: self.settings.appKeys) else {
            throw ProviderError(.unsupportedProof, "no Kakao app key is configured")
        }
        var fields: [(name: String, value: String)] = [
            ("grant_type", "authorization_code"), ("client_id", clientID), ("code", code),
        ]
        if let redirectURI = proof.redirectURI { fields.append(("redirect_uri", redirectURI)) }
        if let verifier = proof.codeVerifier { fields.append(("code_verifier", verifier)) }
        if let secret = self.settings.clientSecret { fields.append(("client_secret", secret)) }
        return try await self.fetcher.fetch(.form(url: self.settings.tokenURL, fields: fields)).successObject()
    }

    /// A numeric id as Kakao sends it (a JSON integer), as text.
    static func identifier(_ value: AuthlogCore.JSONValue) -> String? {
        if let number = value.integerValue { return String(number) }
        return value.stringValue
    }
}
