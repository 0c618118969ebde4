public import AuthlogCore

/// A provider identity whose proof checked out.
public struct VerifiedIdentity: Sendable {
    /// The provider's configured name (`apple`, `github`, an OIDC provider's name).
    public var provider: String
    /// The provider's stable subject (Apple `sub`, GitHub numeric `id`, …). Never stored in clear.
    public var subject: String
    /// The client id (bundle id, app key) the proof was made for.
    public var clientID: String?
    /// When the user authenticated at the provider, if it said.
    public var authTime: Timestamp?
    /// The nonce to consume once, if the proof carried one.
    public var nonce: String?
    /// How the nonce was checked.
    public var nonceCheck: NonceCheck
    /// The email, when the provider vouches for it.
    public var verifiedEmail: String?
    /// Whether the provider is authoritative for that email (providers.md): Apple for its users' addresses,
    /// Google for `@gmail.com` or a Workspace domain (`hd`), Kakao for `@kakao.com`; never GitHub, GitLab,
    /// Firebase or a generic OIDC provider, whose users can claim any address they can receive mail at.
    public var emailIsAuthoritative: Bool
    /// A display name (Apple's first-time name, GitHub `name`, …); unsigned for Apple.
    public var displayName: String?
    /// The provider behind a broker (Firebase's `sign_in_provider`).
    public var upstreamProvider: String?
    /// What revokes the user's grant at account deletion, kept sealed until then: Apple's refresh token,
    /// GitHub's access token, Kakao's user id (unlinked with the admin key).
    public var revocationCredential: String?

    /// Creates an identity.
    public init(
        provider: String,
        subject: String,
        clientID: String? = nil,
        authTime: Timestamp? = nil,
        nonce: String? = nil,
        nonceCheck: NonceCheck = .absent,
        verifiedEmail: String? = nil,
        emailIsAuthoritative: Bool = false,
        displayName: String? = nil,
        upstreamProvider: String? = nil,
        revocationCredential: String? = nil
    ) {
        self.emailIsAuthoritative = emailIsAuthoritative
        self.provider = provider
        self.subject = subject
        self.clientID = clientID
        self.authTime = authTime
        self.nonce = nonce
        self.nonceCheck = nonceCheck
        self.verifiedEmail = verifiedEmail
        self.displayName = displayName
        self.upstreamProvider = upstreamProvider
        self.revocationCredential = revocationCredential
    }
}

/// Verifies one provider's proofs.
public protocol IdentityProvider: Sendable {
    /// The configured name, used in routes and events.
    var name: String { get }
    /// Checks `proof` and returns the identity it proves.
    /// - Throws: ``ProviderError`` with the `signin.failed` reason.
    func verify(_ proof: SigninProof) async throws(ProviderError) -> VerifiedIdentity
    /// The provider's key cache, once it has one (for `/metrics`); `nil` for providers without keys.
    var keyCache: JWKSCache? { get async }
}

extension IdentityProvider {
    /// No key cache.
    public var keyCache: JWKSCache? { nil }
}
