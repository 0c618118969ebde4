#if canImport(CryptoKit)
/// The platform's adapter: CryptoKit, a system framework.
typealias PlatformCrypto = CryptoKitClientCrypto
#elseif canImport(CLibcrypto)
/// The platform's adapter: the system's OpenSSL 3 libcrypto.
typealias PlatformCrypto = LibcryptoClientCrypto
#else
#error("AuthlogClient needs CryptoKit (Apple platforms) or OpenSSL 3's libcrypto (Linux: apt install libssl-dev)")
#endif

/// Random bytes and SHA-256 for the sign-in helpers (Apple's nonce, PKCE), from the platform's adapter: CryptoKit
/// on Apple platforms, the system's libcrypto on Linux.
enum ClientCrypto {
    /// `count` cryptographically secure random bytes.
    /// - Throws: ``AuthlogClientError`` `.randomUnavailable` when the system's generator fails (OpenSSL's can;
    ///   CryptoKit stops the program instead).
    static func randomBytes(count: Int) throws(AuthlogClientError) -> [UInt8] {
        guard let bytes = PlatformCrypto().randomBytes(count: count) else {
            throw AuthlogClientError(.randomUnavailable, detail: "the system's random generator failed")
        }
        return bytes
    }

    /// The SHA-256 digest of `bytes`.
    static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        PlatformCrypto().sha256(bytes)
    }
}
