import AuthlogCore
public import AuthlogCrypto

/// An OpenID Connect provider found by discovery: GitLab (gitlab.com or self-managed, providers.md §3)
/// and any configured generic provider. Accepts an identity token (nonce compared as sent) or an
/// authorization code with its PKCE verifier, exchanged at the discovered token endpoint.
public struct OIDCProvider: IdentityProvider {
    /// One provider's settings.
    public struct Settings: Sendable {
        /// The issuer, which the discovery document must name exactly (GitLab: its external URL).
        public var issuer: String
        /// The discovery document; by default `<issuer>/.well-known/openid-configuration`.
        public var discoveryURL: String
        /// Client ids (GitLab: Application IDs) tokens may be issued to.
        public var clientIDs: Set<String>
        /// The confidential client's secret, for the code exchange.
        public var clientSecret: String?
        /// The pinned algorithm.
        public var algorithm: SignatureAlgorithm = .rs256

        /// Creates settings with the conventional discovery URL.
        public init(issuer: String, clientIDs: Set<String>, clientSecret: String? = nil, discoveryURL: String? = nil) {
            self.issuer = issuer
            self.clientIDs = clientIDs
            self.clientSecret = clientSecret
            self.discoveryURL = discoveryURL ?? Self.discoveryURL(for: issuer)
        }

        /// `<issuer>/.well-known/openid-configuration`.
        public static func discoveryURL(for issuer: String) -> String {
            (issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer) + "/.well-known/openid-configuration"
        }
    }

    public let name: String
    private let settings: Settings
    private let discovery: OIDCDiscovery
    private let fetcher: any HTTPFetching

    /// Creates the provider.
    public init(name: String, settings: Settings, fetcher: any HTTPFetching) {
        self.name = name
        self.settings = settings
        self.fetcher = fetcher
        self.discovery = OIDCDiscovery(url: settings.discoveryURL, expectedIssuer: settings.issuer, fetcher: fetcher)
    }

    /// The key cache at the discovered `jwks_uri`, once discovery has run (asking never fetches).
    public var keyCache: JWKSCache? {
        get async { await self.discovery.existingKeyCache }
    }

    public func verify(_ proof: SigninProof) async throws(ProviderError) -> VerifiedIdentity {
        let verifier = IDTokenVerifier(
            rules: IDTokenRules(
                issuers: [self.settings.issuer],
                audiences: self.settings.clientIDs,
                algorithm: self.settings.algorithm
            ),
            keys: try await self.discovery.keyCache()
        )
        let token: VerifiedIDToken
        var nonce: (nonce: String?, check: NonceCheck) = (nil, .absent)
        if let idToken = proof.idToken {
            let verified = try await verifier.verify(idToken)
            token = verified
            nonce = try verified.vouching { () throws(ProviderError) in
                try NonceRule.raw.check(tokenNonce: verified.nonce, rawNonce: proof.rawNonce)
            }
        } else if let code = proof.authorizationCode {
            let verified = try await verifier.verify(try await self.exchange(code: code, proof: proof))
            token = verified
            if proof.rawNonce != nil || verified.nonce != nil {
                nonce = try verified.vouching { () throws(ProviderError) in
                    try NonceRule.raw.check(tokenNonce: verified.nonce, rawNonce: proof.rawNonce)
                }
            }
        } else {
            throw ProviderError(.unsupportedProof, "\(self.name) sign-in needs an id_token or an authorization_code")
        }
        let email = token.claims["email_verified"]?.boolValue == true ? token.claims["email"]?.stringValue : nil
        return VerifiedIdentity(
            provider: self.name,
            subject: token.subject,
            clientID: token.clientID,
            authTime: token.authTime,
            nonce: nonce.nonce,
            nonceCheck: nonce.check,
            verifiedEmail: email,
            displayName: token.claims["name"]?.stringValue
        )
    }

    private func exchange(code: String, proof: SigninProof) async throws(ProviderError) -> String {
        guard let verifier = proof.codeVerifier, PKCE.isValidVerifier(verifier) else {
            throw ProviderError(.malformed, "an authorization code needs a PKCE code_verifier of 43–128 characters")
        }
        guard let clientID = proof.exchangeClientID(among: self.settings.clientIDs) else {
            throw ProviderError(.unsupportedProof, "no client id is configured")
        }
        guard let endpoint = try await self.discovery.current().tokenEndpoint else {
            throw ProviderError(.providerError, "the provider announces no token endpoint")
        }
        var fields: [(name: String, value: String)] = [
            ("grant_type", "authorization_code"), ("client_id", clientID), ("code", code), ("code_verifier", verifier),
        ]
        if let secret = self.settings.clientSecret { fields.append(("client_secret", secret)) }
        if let redirectURI = proof.redirectURI { fields.append(("redirect_uri", redirectURI)) }
        let body = try await self.fetcher.fetch(.form(url: endpoint, fields: fields)).successObject()
        guard let idToken = body["id_token"]?.stringValue else {
            throw ProviderError(.providerError, "the token answer has no id_token (is the openid scope granted?)")
        }
        return idToken
    }
}

/// RFC 7636 code verifiers.
enum PKCE {
    /// Whether `verifier` is 43–128 characters of `[A-Za-z0-9-._~]`.
    static func isValidVerifier(_ verifier: String) -> Bool {
        (43...128).contains(verifier.utf8.count)
            && verifier.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == 0x2D || byte == 0x2E || byte == 0x5F || byte == 0x7E
            }
    }
}
