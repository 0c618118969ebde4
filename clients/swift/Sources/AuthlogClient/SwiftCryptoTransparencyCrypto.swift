public import AuthlogTransparency
import Crypto

/// The verification core's hashing and Ed25519 checks (``TransparencyCrypto``) on swift-crypto: CryptoKit on
/// Apple platforms, BoringSSL elsewhere. What an app passes to verify receipts, notes and proofs.
public struct SwiftCryptoTransparencyCrypto: TransparencyCrypto {
    /// The implementation.
    public init() {}

    /// The SHA-256 digest of `bytes`.
    public func sha256(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(bufferPointer: bytes)
        return Array(hasher.finalize())
    }

    /// Whether `signature` is `publicKey`'s valid Ed25519 signature of `message`.
    public func isValidEd25519Signature(_ signature: [UInt8], of message: [UInt8], publicKey: [UInt8]) -> Bool {
        guard signature.count == 64, let key = try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey) else {
            return false
        }
        return key.isValidSignature(signature, for: message)
    }
}

extension TransparencyCrypto where Self == SwiftCryptoTransparencyCrypto {
    /// swift-crypto's implementation.
    public static var swiftCrypto: SwiftCryptoTransparencyCrypto { SwiftCryptoTransparencyCrypto() }
}
