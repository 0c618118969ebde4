internal import COpenSSL

/// A private key that signs: EC P-256 (ES256), Ed25519 (EdDSA) or RSA (RS256, for test providers).
public struct PrivateKey: Sendable {
    let key: EVPKey

    /// The algorithm this key signs with.
    public let algorithm: SignatureAlgorithm

    private init(_ key: EVPKey) throws(CryptoError) {
        self.key = key
        if key.isType("EC") && key.bits == 256 {
            self.algorithm = .es256
        } else if key.isType("ED25519") {
            self.algorithm = .edDSA
        } else if key.isType("RSA") && key.bits >= 2048 {
            self.algorithm = .rs256
        } else {
            throw CryptoError(
                .invalidKey,
                "only EC P-256, Ed25519 and RSA (2048 bits or more) private keys are accepted"
            )
        }
    }

    /// Generates a new key for `algorithm` (RSA keys have `rsaBits` bits).
    /// - Throws: ``CryptoError`` `.internalFailure` if OpenSSL cannot generate it.
    public static func generate(
        for algorithm: SignatureAlgorithm,
        rsaBits: Int = 2048
    ) throws(CryptoError) -> PrivateKey {
        let pointer: OpaquePointer?
        switch algorithm {
        case .es256: pointer = authlog_generate_ec_p256()
        case .edDSA: pointer = authlog_generate_ed25519()
        case .rs256: pointer = authlog_generate_rsa(rsaBits)
        }
        guard let pointer else { throw CryptoError(.internalFailure, "key generation failed") }
        return try PrivateKey(EVPKey(takingOwnership: pointer))
    }

    /// Reads a PEM private key (`PRIVATE KEY`, `EC PRIVATE KEY` or `RSA PRIVATE KEY`, unencrypted).
    /// - Throws: ``CryptoError`` `.invalidKey` for anything else.
    public init(pem: String) throws(CryptoError) {
        guard let key = EVPKey.readPEM(pem, with: { PEM_read_bio_PrivateKey($0, nil, nil, nil) }) else {
            throw CryptoError(.invalidKey, "not an unencrypted PEM private key")
        }
        try self.init(key)
    }

    /// The key as PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`).
    /// - Throws: ``CryptoError`` `.internalFailure` if OpenSSL cannot write it.
    public func pemRepresentation() throws(CryptoError) -> String {
        try EVPKey.writePEM { PEM_write_bio_PrivateKey($0, self.key.pointer, nil, nil, 0, nil, nil) }
    }

    /// The public half as SubjectPublicKeyInfo PEM (`-----BEGIN PUBLIC KEY-----`).
    /// - Throws: ``CryptoError`` `.internalFailure` if OpenSSL cannot write it.
    public func publicKeyPEM() throws(CryptoError) -> String {
        try EVPKey.writePEM { PEM_write_bio_PUBKEY($0, self.key.pointer) }
    }

    /// The public half.
    /// - Throws: ``CryptoError`` if it cannot be extracted.
    public func publicKey() throws(CryptoError) -> PublicKey {
        try PublicKey(pem: try self.publicKeyPEM())
    }

    /// Signs `message`. ES256 signatures are returned as the 64 bytes r‖s of JWS.
    /// - Throws: ``CryptoError`` `.internalFailure` if OpenSSL fails.
    public func sign(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw CryptoError(.internalFailure, "out of memory") }
        defer { EVP_MD_CTX_free(context) }
        let digest = self.algorithm == .edDSA ? nil : EVP_sha256()
        guard EVP_DigestSignInit(context, nil, digest, nil, self.key.pointer) == 1 else {
            throw CryptoError(.internalFailure, "cannot start signing")
        }
        var length = self.key.maximumSignatureSize
        var signature = [UInt8](repeating: 0, count: length)
        let status = message.withNonNullPointer { bytes, count in
            EVP_DigestSign(context, &signature, &length, bytes, count)
        }
        guard status == 1 else { throw CryptoError(.internalFailure, "signing failed") }
        let produced = Array(signature.prefix(length))
        return self.algorithm == .es256 ? try ECDSASignature.rawP256(fromDER: produced) : produced
    }
}
