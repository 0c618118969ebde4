public import AuthlogTransparency

/// The verification core's hashing and Ed25519 checks (``TransparencyCrypto``) on OpenSSL: what the server, the
/// CLI and the witness use (``TransparencyCrypto/openSSL``). An app uses swift-crypto's instead (AuthlogClient).
public struct OpenSSLTransparencyCrypto: TransparencyCrypto {
    /// The implementation.
    public init() {}

    /// The SHA-256 digest of `bytes`, with OpenSSL's `EVP_Digest`.
    public func sha256(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        SHA256.hash(bytes)
    }

    /// Whether `signature` is `publicKey`'s valid Ed25519 signature of `message`.
    public func isValidEd25519Signature(_ signature: [UInt8], of message: [UInt8], publicKey: [UInt8]) -> Bool {
        do {
            try PublicKey(ed25519: publicKey).verify(signature, for: message, algorithm: .edDSA)
            return true
        } catch {
            return false
        }
    }
}

extension TransparencyCrypto where Self == OpenSSLTransparencyCrypto {
    /// OpenSSL's implementation.
    public static var openSSL: OpenSSLTransparencyCrypto { OpenSSLTransparencyCrypto() }
}

/// An Ed25519 ``PrivateKey`` as the core's ``Ed25519SigningKey``: the checkpoint key and a witness's key.
public struct OpenSSLEd25519SigningKey: Ed25519SigningKey {
    private let key: PrivateKey
    /// The raw 32-byte public key.
    public let publicKeyBytes: [UInt8]

    /// The signing key `key`.
    /// - Throws: ``CryptoError`` `.invalidKey` unless it is an Ed25519 key.
    public init(_ key: PrivateKey) throws(CryptoError) {
        guard key.algorithm == .edDSA else { throw CryptoError(.invalidKey, "notes are signed with Ed25519 keys") }
        self.key = key
        self.publicKeyBytes = try key.publicKey().ed25519Bytes()
    }

    /// The Ed25519 signature of `message`.
    /// - Throws: ``CryptoError`` when OpenSSL cannot sign.
    public func signature(of message: [UInt8]) throws -> [UInt8] {
        try self.key.sign(message)
    }
}
