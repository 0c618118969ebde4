// The Apple platforms' adapter. The test-only target CryptoKitAPIOnSwiftCrypto compiles this same file (a
// symbolic link) against swift-crypto, CryptoKit's API on Linux, with CRYPTOKIT_API_ON_SWIFT_CRYPTO defined, so
// that the device's code runs the Linux tests' vectors (ClientCryptoAdapterTests). AuthlogClient itself never
// depends on swift-crypto: on Linux it has LibcryptoClientCrypto.
import AuthlogTransparency

#if canImport(CryptoKit)
import CryptoKit
#elseif CRYPTOKIT_API_ON_SWIFT_CRYPTO
import Crypto
#endif

#if canImport(CryptoKit) || CRYPTOKIT_API_ON_SWIFT_CRYPTO
/// AuthlogClient's SHA-256, Ed25519 verification and random bytes on Apple platforms, from CryptoKit (a system
/// framework, so an app resolves and builds no package for them). Linux uses ``LibcryptoClientCrypto``.
package struct CryptoKitClientCrypto: TransparencyCrypto {
    /// The adapter (it holds no state).
    package init() {}

    /// The SHA-256 digest of `bytes`.
    package func sha256(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(bufferPointer: bytes)
        return Array(hasher.finalize())
    }

    /// Whether `signature` is `publicKey`'s valid Ed25519 signature (RFC 8032) of `message`; false for any
    /// malformed input.
    package func isValidEd25519Signature(_ signature: [UInt8], of message: [UInt8], publicKey: [UInt8]) -> Bool {
        guard signature.count == 64, let key = try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey) else {
            return false
        }
        return key.isValidSignature(signature, for: message)
    }

    /// `count` cryptographically secure random bytes from the system generator (CryptoKit stops the program
    /// rather than return weak bytes), or nil for a negative `count`.
    package func randomBytes(count: Int) -> [UInt8]? {
        guard count > 0 else { return count == 0 ? [] : nil }
        return SymmetricKey(size: SymmetricKeySize(bitCount: count * 8)).withUnsafeBytes { Array($0) }
    }
}
#endif
