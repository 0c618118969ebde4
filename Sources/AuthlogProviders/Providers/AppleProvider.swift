import AuthlogCore
public import AuthlogCrypto
public import Foundation

/// Sign in with Apple (providers.md §1): RS256 identity tokens from `https://appleid.apple.com`, the
/// nonce as hex SHA-256 of the raw nonce, optional authorization-code exchange with an ES256 client secret.
public struct AppleProvider: IdentityProvider {
    /// What authlog needs to know about the Apple developer account.
    public struct Settings: Sendable {
        /// `https://appleid.apple.com`.
        public var issuer = "https://appleid.apple.com"
        /// Bundle ids and Services ids tokens may be issued to.
        public var clientIDs: Set<String>
        /// The code-exchange endpoint.
        public var tokenURL = "https://appleid.apple.com/auth/token"
        /// The token-revocation endpoint.
        public var revokeURL = "https://appleid.apple.com/auth/revoke"
        /// The Team ID (client secret `iss`); needed for the code exchange.
        public var teamID: String?
        /// The Key ID of the Sign in with Apple key (client secret `kid`).
        public var keyID: String?
        /// That key (ES256, PKCS#8 PEM).
        public var privateKey: PrivateKey?

        /// Creates settings.
        public init(clientIDs: Set<String>) { self.clientIDs = clientIDs }
    }

    public let name: String
    let settings: Settings
    let verifier: IDTokenVerifier
    let fetcher: any HTTPFetching

    /// Creates the provider; `keys` caches Apple's JWKS.
    public init(name: String = "apple", settings: Settings, keys: JWKSCache, fetcher: any HTTPFetching) {
        self.name = name
        self.settings = settings
        self.fetcher = fetcher
        self.verifier = IDTokenVerifier(
            rules: IDTokenRules(issuers: [settings.issuer], audiences: settings.clientIDs, maximumAge: 600),
            keys: keys
        )
    }

    public var keyCache: JWKSCache? { self.verifier.keys }

    public func verify(_ proof: SigninProof) async throws(ProviderError) -> VerifiedIdentity {
        var exchanged: (token: VerifiedIDToken, refreshToken: String?)?
        if let code = proof.authorizationCode {
            exchanged = try await self.exchange(code: code, proof: proof)
        }
        let token: VerifiedIDToken
        var nonce: (nonce: String?, check: NonceCheck)
        if let idToken = proof.idToken {
            let verified = try await self.verifier.verify(idToken)
            token = verified
            if let exchanged, !exchanged.token.subject.utf8.elementsEqual(verified.subject.utf8) {
                throw ProviderError(.subjectMismatch, "the exchanged code belongs to another user")
            }
            nonce = try verified.vouching { () throws(ProviderError) in
                try Self.checkNonce(of: verified, rawNonce: proof.rawNonce, exchanged: exchanged != nil)
            }
        } else if let exchanged {
            token = exchanged.token
            nonce = (nil, .absent)
        } else {
            throw ProviderError(.unsupportedProof, "Apple sign-in needs an id_token or an authorization_code")
        }
        let emailVerified = try token.claims.flexibleBool("email_verified") ?? false
        _ = try token.claims.flexibleBool("is_private_email")
        return VerifiedIdentity(
            provider: self.name,
            subject: token.subject,
            clientID: token.clientID,
            authTime: token.authTime,
            nonce: nonce.nonce,
            nonceCheck: nonce.check,
            verifiedEmail: emailVerified ? token.claims["email"]?.stringValue : nil,
            emailIsAuthoritative: emailVerified,
            displayName: Self.displayName(from: proof.user),
            revocationCredential: exchanged?.refreshToken
        )
    }

    /// The nonce check of Apple's identity tokens: hex SHA-256 of the raw nonce, or none for a user whose
    /// device does not support nonces (`nonce_supported` false), and then only with a code exchange.
    private static func checkNonce(
        of token: VerifiedIDToken,
        rawNonce: String?,
        exchanged: Bool
    ) throws(ProviderError) -> (nonce: String?, check: NonceCheck) {
        if token.nonce == nil, try token.claims.flexibleBool("nonce_supported") == false {
            guard exchanged else {
                throw ProviderError(.nonceMissing, "without nonce support a code exchange is required")
            }
            return (nil, .notSupported)
        }
        guard token.nonce != nil else { throw ProviderError(.nonceMissing, "the identity token carries no nonce") }
        return try NonceRule.sha256Hex.check(tokenNonce: token.nonce, rawNonce: rawNonce)
    }

    /// "First Last" from Apple's first-time `user` JSON; unsigned, so only ever display data.
    static func displayName(from user: JSONValue?) -> String? {
        guard let name = user?["name"] else { return nil }
        let parts = [name["firstName"]?.stringValue, name["lastName"]?.stringValue].compactMap { $0 }
            .filter { !$0.isEmpty }
        return parts.isEmpty ? nil : String(parts.joined(separator: " ").prefix(200))
    }

    private func exchange(code: String, proof: SigninProof) async throws(ProviderError) -> (VerifiedIDToken, String?) {
        guard let clientID = proof.exchangeClientID(among: self.settings.clientIDs) else {
            throw ProviderError(.unsupportedProof, "no Apple client id is configured")
        }
        var fields: [(name: String, value: String)] = [
            ("client_id", clientID), ("client_secret", try self.makeClientSecret(clientID: clientID)), ("code", code),
            ("grant_type", "authorization_code"),
        ]
        if let redirectURI = proof.redirectURI { fields.append(("redirect_uri", redirectURI)) }
        let response = try await self.fetcher.fetch(.form(url: self.settings.tokenURL, fields: fields))
        let body = try response.successObject()
        guard let idToken = body["id_token"]?.stringValue else {
            throw ProviderError(.providerError, "Apple's token answer has no id_token")
        }
        return (try await self.verifier.verify(idToken), body["refresh_token"]?.stringValue)
    }

    /// The client secret JWT: ES256 with the team's key, valid for an hour.
    /// - Throws: ``ProviderError`` when the code exchange is not configured.
    public func makeClientSecret(clientID: String, now: Date = Date()) throws(ProviderError) -> String {
        guard let teamID = self.settings.teamID, let keyID = self.settings.keyID, let key = self.settings.privateKey
        else { throw ProviderError(.unsupportedProof, "the Apple code exchange is not configured") }
        let issuedAt = Timestamp(now).microsecondsSinceEpoch / 1_000_000
        let claims = JSONValue.object([
            ("iss", .string(teamID)), ("iat", .number(String(issuedAt))), ("exp", .number(String(issuedAt + 3600))),
            ("aud", .string(self.settings.issuer)), ("sub", .string(clientID)),
        ])
        do {
            return try JWSSigner(key: key, kid: keyID).sign(claims)
        } catch {
            throw ProviderError(.providerError, "the Apple client secret could not be signed")
        }
    }
}
