import Crypto

/// Random bytes and SHA-256 for the sign-in helpers (Apple's nonce, PKCE), from swift-crypto: CryptoKit on Apple
/// platforms, and on Linux the same API over BoringSSL, so the code that runs in the Linux tests is the code an
/// app runs.
enum ClientCrypto {
    /// `count` cryptographically secure random bytes, from the system generator through swift-crypto (which
    /// stops the program rather than return weak bytes if the generator fails).
    static func randomBytes(count: Int) -> [UInt8] {
        SymmetricKey(size: SymmetricKeySize(bitCount: count * 8)).withUnsafeBytes { Array($0) }
    }

    /// The SHA-256 digest of `bytes`.
    static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        Array(SHA256.hash(data: bytes))
    }
}
