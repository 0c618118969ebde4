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
    /// How the nonce was checked: `matched`, `not_supported` or `absent`.
    public var nonceCheck: String
    /// The email, when the provider vouches for it.
    public var verifiedEmail: String?
    /// A display name (Apple's first-time name, GitHub `name`, …); unsigned for Apple.
    public var displayName: String?
    /// The provider behind a broker (Firebase's `sign_in_provider`).
    public var upstreamProvider: String?
    /// A provider refresh token to keep encrypted for later revocation (Apple).
    public var providerRefreshToken: String?

    /// Creates an identity.
    public init(
        provider: String,
        subject: String,
        clientID: String? = nil,
        authTime: Timestamp? = nil,
        nonce: String? = nil,
        nonceCheck: String = "absent",
        verifiedEmail: String? = nil,
        displayName: String? = nil,
        upstreamProvider: String? = nil,
        providerRefreshToken: String? = nil
    ) {
        self.provider = provider
        self.subject = subject
        self.clientID = clientID
        self.authTime = authTime
        self.nonce = nonce
        self.nonceCheck = nonceCheck
        self.verifiedEmail = verifiedEmail
        self.displayName = displayName
        self.upstreamProvider = upstreamProvider
        self.providerRefreshToken = providerRefreshToken
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
