import AuthlogCrypto

/// Firebase Authentication ID tokens (providers.md §6): securetoken keys, `iss` and `aud` from the
/// configured project id, `firebase.sign_in_provider` kept as the upstream provider. Emulator tokens
/// (`alg: none`), session cookies and custom tokens fail the pinned algorithm, issuer or audience.
public struct FirebaseProvider: IdentityProvider {
    public let name: String
    private let verifier: IDTokenVerifier

    /// Creates the provider for `projectID`.
    public init(name: String = "firebase", projectID: String, keys: JWKSCache) {
        self.name = name
        self.verifier = IDTokenVerifier(
            rules: IDTokenRules(issuers: ["https://securetoken.google.com/\(projectID)"], audiences: [projectID]),
            keys: keys
        )
    }

    public var keyCache: JWKSCache? { self.verifier.keys }

    public func verify(_ proof: SigninProof) async throws(ProviderError) -> VerifiedIdentity {
        guard let idToken = proof.idToken else {
            throw ProviderError(.unsupportedProof, "Firebase sign-in needs an id_token")
        }
        let token = try await self.verifier.verify(idToken)
        guard token.subject.utf8.count <= 128 else {
            throw ProviderError(.invalidClaim, "sub is longer than 128 bytes")
        }
        if let userID = token.claims["user_id"], userID.stringValue != token.subject {
            throw ProviderError(.invalidClaim, "user_id differs from sub")
        }
        guard token.authTime != nil else { throw ProviderError(.invalidClaim, "auth_time is required") }
        let firebase = token.claims["firebase"]
        guard let upstream = firebase?["sign_in_provider"]?.stringValue else {
            throw ProviderError(.invalidClaim, "firebase.sign_in_provider is required")
        }
        let email = token.claims["email_verified"]?.boolValue == true ? token.claims["email"]?.stringValue : nil
        return VerifiedIdentity(
            provider: self.name,
            subject: token.subject,
            clientID: token.clientID,
            authTime: token.authTime,
            verifiedEmail: email,
            displayName: token.claims["name"]?.stringValue,
            upstreamProvider: upstream
        )
    }
}
