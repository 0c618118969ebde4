internal import COpenSSL

/// A public key (RSA, EC P-256 or Ed25519) that verifies signatures.
public struct PublicKey: Sendable {
    let key: EVPKey

    /// The algorithm this key verifies (found once: OpenSSL's type lookup takes a lock and a name search).
    public let algorithm: SignatureAlgorithm

    /// The verification set up once for this key (ES256, RS256), copied for each signature; nil for Ed25519,
    /// whose contexts OpenSSL 3.0 cannot copy, and if the set-up failed (each verification then sets up its own).
    let template: VerificationTemplate?

    init(_ key: EVPKey) throws(CryptoError) {
        let algorithm = try Self.algorithm(of: key)
        self.key = key
        self.algorithm = algorithm
        self.signatureSize = key.maximumSignatureSize
        self.template = algorithm == .edDSA ? nil : VerificationTemplate(key: key)
    }

    private static func algorithm(of key: EVPKey) throws(CryptoError) -> SignatureAlgorithm {
        if key.isType("RSA") {
            guard key.bits >= 2048 else { throw CryptoError(.weakKey, "RSA keys under 2048 bits are refused") }
            return .rs256
        }
        if key.isType("EC") {
            guard key.bits == 256 else { throw CryptoError(.invalidKey, "only EC keys on P-256 are accepted") }
            return .es256
        }
        guard key.isType("ED25519") else {
            throw CryptoError(.invalidKey, "only RSA, EC P-256 and Ed25519 keys are accepted")
        }
        return .edDSA
    }

    /// The signature length in bytes (the modulus length for RSA).
    let signatureSize: Int

    /// The modulus or curve size in bits.
    public var bits: Int { self.key.bits }

    /// Reads a `-----BEGIN PUBLIC KEY-----` PEM.
    /// - Throws: ``CryptoError`` `.invalidKey` for anything else, `.weakKey` for short RSA keys.
    public init(pem: String) throws(CryptoError) {
        guard let key = EVPKey.readPEM(pem, with: { PEM_read_bio_PUBKEY($0, nil, nil, nil) }) else {
            throw CryptoError(.invalidKey, "not a PEM public key")
        }
        try self.init(key)
    }

    /// The key as SubjectPublicKeyInfo PEM (`-----BEGIN PUBLIC KEY-----`), as OpenSSL writes it: the same text
    /// for the same key whatever PEM it was read from.
    /// - Throws: ``CryptoError`` `.internalFailure` if OpenSSL cannot write it.
    public func pemRepresentation() throws(CryptoError) -> String {
        try EVPKey.writePEM { PEM_write_bio_PUBKEY($0, self.key.pointer) }
    }

    /// Checks `signature` over `message` with `algorithm`, which must fit this key.
    /// - Throws: ``CryptoError`` `.invalidSignature`, `.keyMismatch` or `.malformed` (wrong signature length).
    public func verify(_ signature: [UInt8], for message: [UInt8], algorithm: SignatureAlgorithm) throws(CryptoError) {
        try self.verify(signature, for: message, algorithm: algorithm, settingUpEachTime: false)
    }

    /// ``verify(_:for:algorithm:)`` with the verification set up for this signature alone, as before the
    /// key's template: the baseline `authlog-bench crypto` measures the template against.
    @_spi(Benchmarks)
    public func verify(
        _ signature: [UInt8],
        for message: [UInt8],
        algorithm: SignatureAlgorithm,
        settingUpEachTime: Bool
    ) throws(CryptoError) {
        guard algorithm == self.algorithm else {
            throw CryptoError(.keyMismatch, "a \(self.algorithm.keyType) key cannot verify \(algorithm.rawValue)")
        }
        let encoded: [UInt8]
        switch algorithm {
        case .rs256:
            guard signature.count == self.signatureSize else {
                throw CryptoError(.invalidSignature, "an RS256 signature is as long as the modulus")
            }
            encoded = signature
        case .es256:
            encoded = try ECDSASignature.der(fromRawP256: signature)
        case .edDSA:
            guard signature.count == 64 else {
                throw CryptoError(.invalidSignature, "an Ed25519 signature is 64 bytes")
            }
            encoded = signature
        }
        let context: OpaquePointer
        if !settingUpEachTime, let copy = self.template?.copy() {
            context = copy
        } else {
            context = try self.newVerification()
        }
        defer { EVP_MD_CTX_free(context) }
        let status = encoded.withNonNullPointer { signatureBytes, signatureCount in
            message.withNonNullPointer { messageBytes, messageCount in
                EVP_DigestVerify(context, signatureBytes, signatureCount, messageBytes, messageCount)
            }
        }
        guard status == 1 else { throw CryptoError(.invalidSignature, "the signature does not verify") }
        _ = CryptoError.drainOpenSSLErrors()
    }

    /// A context set up to verify one signature with this key, which the caller frees.
    /// - Throws: ``CryptoError`` `.internalFailure` when OpenSSL cannot set one up.
    private func newVerification() throws(CryptoError) -> OpaquePointer {
        guard let context = EVP_MD_CTX_new() else { throw CryptoError(.internalFailure, "out of memory") }
        let digest = self.algorithm == .edDSA ? nil : SHA256.algorithm
        guard EVP_DigestVerifyInit(context, nil, digest, nil, self.key.pointer) == 1 else {
            EVP_MD_CTX_free(context)
            throw CryptoError(.internalFailure, "cannot start verification")
        }
        return context
    }
}
