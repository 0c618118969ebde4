import AuthlogCrypto

/// Google ID tokens (providers.md §2): both issuer spellings, `aud`/`azp` allow-list, optional
/// hosted-domain rule, the nonce compared as sent.
public struct GoogleProvider: IdentityProvider {
    /// Google's issuer spellings.
    public static let issuers = ["accounts.google.com", "https://accounts.google.com"]

    public let name: String
    private let verifier: IDTokenVerifier
    private let hostedDomain: String?

    /// Creates the provider. With `hostedDomain`, only Workspace accounts of that domain sign in.
    public init(name: String = "google", clientIDs: Set<String>, hostedDomain: String? = nil, keys: JWKSCache) {
        self.name = name
        self.hostedDomain = hostedDomain
        self.verifier = IDTokenVerifier(rules: IDTokenRules(issuers: Self.issuers, audiences: clientIDs), keys: keys)
    }

    public var keyCache: JWKSCache? { self.verifier.keys }

    public func verify(_ proof: SigninProof) async throws(ProviderError) -> VerifiedIdentity {
        guard let idToken = proof.idToken else {
            throw ProviderError(.unsupportedProof, "Google sign-in needs an id_token")
        }
        let token = try await self.verifier.verify(idToken)
        let domain = token.claims["hd"]?.stringValue
        if let required = self.hostedDomain, domain != required {
            throw ProviderError(.hostedDomainMismatch, "the account is not in the required Google Workspace domain")
        }
        let nonce = try token.vouching { () throws(ProviderError) in
            try NonceRule.raw.check(tokenNonce: token.nonce, rawNonce: proof.rawNonce)
        }
        let email = token.claims["email"]?.stringValue
        let verified = token.claims["email_verified"]?.boolValue == true
        let authoritative = verified && (domain != nil || email?.lowercased().hasSuffix("@gmail.com") == true)
        return VerifiedIdentity(
            provider: self.name,
            subject: token.subject,
            clientID: token.clientID,
            authTime: token.authTime,
            nonce: nonce.nonce,
            nonceCheck: nonce.check,
            verifiedEmail: verified ? email : nil,
            emailIsAuthoritative: authoritative,
            displayName: token.claims["name"]?.stringValue
        )
    }
}
