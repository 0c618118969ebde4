// The project's rule is OpenSSL (AuthlogCrypto) for all cryptography, and on Linux the client keeps it. An iOS
// or macOS app cannot link the system libcrypto, though, so on Apple platforms this file uses CryptoKit and
// `SecRandomCopyBytes` instead; Package.swift makes AuthlogCrypto a dependency on Linux only. Everything the
// client needs — random bytes and SHA-256, for Apple's nonce and PKCE — goes through this one file.
#if canImport(CryptoKit)
import CryptoKit
import Security
#else
import AuthlogCrypto
#endif

/// Random bytes and SHA-256 from the platform's vetted implementation.
enum ClientCrypto {
    /// `count` cryptographically secure random bytes.
    /// - Throws: ``AuthlogClientError`` `.randomUnavailable` when the system generator fails.
    static func randomBytes(count: Int) throws(AuthlogClientError) -> [UInt8] {
        #if canImport(CryptoKit)
        var bytes = [UInt8](repeating: 0, count: count)
        guard SecRandomCopyBytes(kSecRandomDefault, count, &bytes) == errSecSuccess else {
            throw AuthlogClientError(.randomUnavailable)
        }
        return bytes
        #else
        do {
            return try SecureRandom.bytes(count: count)
        } catch {
            throw AuthlogClientError(.randomUnavailable)
        }
        #endif
    }

    /// The SHA-256 digest of `bytes`.
    static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        #if canImport(CryptoKit)
        return Array(CryptoKit.SHA256.hash(data: bytes))
        #else
        return AuthlogCrypto.SHA256.hash(bytes)
        #endif
    }
}
