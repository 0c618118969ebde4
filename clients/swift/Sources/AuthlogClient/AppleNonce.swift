import AuthlogTransparency

/// The nonce of a Sign in with Apple request: a random raw value the app keeps, and its SHA-256 in hex,
/// which the app sets as `ASAuthorizationAppleIDRequest.nonce`.
///
/// Apple puts the hashed value in the identity token's `nonce` claim; authlog checks that it is
/// `hex(SHA-256(rawValue))` for the raw value sent with the token, so a token taken from another
/// sign-in cannot be replayed.
public struct AppleNonce: Sendable, CustomStringConvertible {
    /// The raw nonce, sent to authlog as `raw_nonce` with the identity token.
    public let rawValue: String
    /// `hex(SHA-256(rawValue))`, for `ASAuthorizationAppleIDRequest.nonce`.
    public let hashed: String

    /// Makes a nonce from 32 random bytes (43 base64url characters).
    /// - Throws: ``AuthlogClientError`` `.randomUnavailable` when the system's random generator fails (OpenSSL's
    ///   on Linux can; CryptoKit's stops the program instead).
    public static func make() throws(AuthlogClientError) -> AppleNonce {
        AppleNonce(rawValue: ClientEncoding.base64URL(try ClientCrypto.randomBytes(count: 32)))
    }

    /// A nonce for a raw value obtained elsewhere, such as `POST /v1/nonces` (``AuthlogClient/requestNonce()``).
    public init(rawValue: String) {
        self.rawValue = rawValue
        self.hashed = Hex.encode(ClientCrypto.sha256(Array(rawValue.utf8)))
    }

    /// Hides the raw value, which must not leak before the sign-in completes.
    public var description: String { "AppleNonce(hashed: \(self.hashed))" }
}
