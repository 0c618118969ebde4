public import AuthlogTransparency

/// The verification core's hashing and Ed25519 checks (``TransparencyCrypto``) on the platform's own library:
/// CryptoKit on Apple platforms, the system's OpenSSL 3 libcrypto on Linux. What an app passes to verify
/// receipts, notes and proofs.
public struct PlatformTransparencyCrypto: TransparencyCrypto {
    private let crypto = PlatformCrypto()

    /// The implementation.
    public init() {}

    /// The SHA-256 digest of `bytes`.
    public func sha256(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        self.crypto.sha256(bytes)
    }

    /// Whether `signature` is `publicKey`'s valid Ed25519 signature of `message`.
    public func isValidEd25519Signature(_ signature: [UInt8], of message: [UInt8], publicKey: [UInt8]) -> Bool {
        self.crypto.isValidEd25519Signature(signature, of: message, publicKey: publicKey)
    }
}

extension TransparencyCrypto where Self == PlatformTransparencyCrypto {
    /// The platform's implementation: CryptoKit on Apple platforms, libcrypto on Linux.
    public static var platform: PlatformTransparencyCrypto { PlatformTransparencyCrypto() }
}
