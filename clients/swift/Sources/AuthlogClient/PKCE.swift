/// A PKCE pair (RFC 7636) for an authorization-code sign-in with GitHub, GitLab or an OIDC provider.
///
/// The app opens the provider's authorization page with ``challenge`` and ``method``
/// (`code_challenge`, `code_challenge_method=S256`), and sends ``verifier`` with the code it gets back.
public struct PKCE: Sendable, CustomStringConvertible {
    /// The code verifier: 43 characters of base64url over 32 random bytes (RFC 7636 §4.1).
    public let verifier: String
    /// `BASE64URL(SHA-256(ASCII(verifier)))` (RFC 7636 §4.2).
    public let challenge: String
    /// Always `S256`.
    public var method: String { "S256" }

    /// Makes a fresh pair.
    /// - Throws: ``AuthlogClientError`` `.randomUnavailable` when the system's random generator fails (OpenSSL's
    ///   on Linux can; CryptoKit's stops the program instead).
    public static func make() throws(AuthlogClientError) -> PKCE {
        PKCE(verifier: ClientEncoding.base64URL(try ClientCrypto.randomBytes(count: 32)))
    }

    /// The pair for a verifier made elsewhere (43 to 128 unreserved characters).
    public init(verifier: String) {
        self.verifier = verifier
        self.challenge = ClientEncoding.base64URL(ClientCrypto.sha256(Array(verifier.utf8)))
    }

    /// Hides the verifier, which proves possession of the code.
    public var description: String { "PKCE(challenge: \(self.challenge), method: S256)" }
}
