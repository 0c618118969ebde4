internal import COpenSSL

/// AES-GCM authenticated encryption (128-bit tags), used with 256-bit per-user data keys.
public enum AESGCM {
    /// The nonce length authlog uses.
    public static let nonceLength = 12
    /// The tag length.
    public static let tagLength = 16

    /// A sealed message: nonce, ciphertext and tag.
    public struct SealedBox: Sendable, Equatable {
        /// The nonce (96 bits for boxes authlog makes).
        public var nonce: [UInt8]
        /// The ciphertext, as long as the plaintext.
        public var ciphertext: [UInt8]
        /// The 128-bit authentication tag.
        public var tag: [UInt8]

        /// Creates a box from its parts.
        public init(nonce: [UInt8], ciphertext: [UInt8], tag: [UInt8]) {
            self.nonce = nonce
            self.ciphertext = ciphertext
            self.tag = tag
        }

        /// `nonce ‖ ciphertext ‖ tag`, the stored form.
        public var combined: [UInt8] { self.nonce + self.ciphertext + self.tag }

        /// Splits the stored form made with a 96-bit nonce.
        /// - Throws: ``CryptoError`` `.malformed` when it is too short.
        public init(combined: [UInt8]) throws(CryptoError) {
            guard combined.count >= AESGCM.nonceLength + AESGCM.tagLength else {
                throw CryptoError(.malformed, "a sealed box is at least 28 bytes")
            }
            self.nonce = Array(combined.prefix(AESGCM.nonceLength))
            self.ciphertext = Array(combined.dropFirst(AESGCM.nonceLength).dropLast(AESGCM.tagLength))
            self.tag = Array(combined.suffix(AESGCM.tagLength))
        }
    }

    /// Encrypts `plaintext` under a 256-bit `key` with a fresh random 96-bit nonce.
    /// - Throws: ``CryptoError`` `.invalidKey` for a key that is not 32 bytes.
    public static func seal(
        _ plaintext: [UInt8],
        key: [UInt8],
        authenticating associatedData: [UInt8] = []
    ) throws(CryptoError) -> SealedBox {
        guard key.count == 32 else { throw CryptoError(.invalidKey, "an AES-256 key is 32 bytes") }
        return try self.seal(
            plaintext,
            key: key,
            nonce: try SecureRandom.bytes(count: Self.nonceLength),
            authenticating: associatedData
        )
    }

    /// Encrypts with an explicit nonce (for tests); never reuse a nonce under one key.
    /// - Throws: ``CryptoError`` `.invalidKey` for a key that is not 16, 24 or 32 bytes.
    public static func seal(
        _ plaintext: [UInt8],
        key: [UInt8],
        nonce: [UInt8],
        authenticating associatedData: [UInt8] = []
    ) throws(CryptoError) -> SealedBox {
        let context = try Self.context(key: key, nonce: nonce, encrypting: true)
        defer { EVP_CIPHER_CTX_free(context) }
        var length: Int32 = 0
        if !associatedData.isEmpty {
            guard EVP_EncryptUpdate(context, nil, &length, associatedData, Int32(associatedData.count)) == 1 else {
                throw CryptoError(.internalFailure, "AES-GCM could not take the associated data")
            }
        }
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count + 16)
        var written: Int32 = 0
        if !plaintext.isEmpty {
            guard EVP_EncryptUpdate(context, &ciphertext, &written, plaintext, Int32(plaintext.count)) == 1 else {
                throw CryptoError(.internalFailure, "AES-GCM encryption failed")
            }
        }
        var final: Int32 = 0
        let finalStatus = ciphertext.withUnsafeMutableBufferPointer { buffer in
            EVP_EncryptFinal_ex(context, buffer.baseAddress.map { $0 + Int(written) }, &final)
        }
        guard finalStatus == 1 else { throw CryptoError(.internalFailure, "AES-GCM encryption failed") }
        var tag = [UInt8](repeating: 0, count: Self.tagLength)
        guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(Self.tagLength), &tag) == 1 else {
            throw CryptoError(.internalFailure, "AES-GCM did not give its tag")
        }
        return SealedBox(nonce: nonce, ciphertext: Array(ciphertext.prefix(Int(written + final))), tag: tag)
    }

    /// Decrypts and authenticates `box` under `key` (16, 24 or 32 bytes).
    /// - Throws: ``CryptoError`` `.decryptionFailed` when anything was tampered with or the key, nonce or
    ///   associated data differ; `.invalidKey` or `.malformed` for impossible parameters.
    public static func open(
        _ box: SealedBox,
        key: [UInt8],
        authenticating associatedData: [UInt8] = []
    ) throws(CryptoError) -> [UInt8] {
        guard box.tag.count == Self.tagLength else { throw CryptoError(.decryptionFailed, "the tag is not 16 bytes") }
        let context = try Self.context(key: key, nonce: box.nonce, encrypting: false)
        defer { EVP_CIPHER_CTX_free(context) }
        var length: Int32 = 0
        if !associatedData.isEmpty {
            guard EVP_DecryptUpdate(context, nil, &length, associatedData, Int32(associatedData.count)) == 1 else {
                throw CryptoError(.decryptionFailed, "AES-GCM could not take the associated data")
            }
        }
        var plaintext = [UInt8](repeating: 0, count: box.ciphertext.count + 16)
        var written: Int32 = 0
        if !box.ciphertext.isEmpty {
            guard EVP_DecryptUpdate(context, &plaintext, &written, box.ciphertext, Int32(box.ciphertext.count)) == 1
            else {
                throw CryptoError(.decryptionFailed, "AES-GCM decryption failed")
            }
        }
        var tag = box.tag
        guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(tag.count), &tag) == 1 else {
            throw CryptoError(.internalFailure, "AES-GCM did not take the tag")
        }
        var final: Int32 = 0
        let finalStatus = plaintext.withUnsafeMutableBufferPointer { buffer in
            EVP_DecryptFinal_ex(context, buffer.baseAddress.map { $0 + Int(written) }, &final)
        }
        guard finalStatus == 1 else {
            throw CryptoError(.decryptionFailed, "the ciphertext, key, nonce or associated data do not match the tag")
        }
        return Array(plaintext.prefix(Int(written + final)))
    }

    private static func context(key: [UInt8], nonce: [UInt8], encrypting: Bool) throws(CryptoError) -> OpaquePointer {
        let cipher: OpaquePointer?
        switch key.count {
        case 16: cipher = EVP_aes_128_gcm()
        case 24: cipher = EVP_aes_192_gcm()
        case 32: cipher = EVP_aes_256_gcm()
        default: throw CryptoError(.invalidKey, "an AES key is 16, 24 or 32 bytes")
        }
        guard !nonce.isEmpty else { throw CryptoError(.malformed, "an AES-GCM nonce cannot be empty") }
        guard let context = EVP_CIPHER_CTX_new() else { throw CryptoError(.internalFailure, "out of memory") }
        let initialise = encrypting ? EVP_EncryptInit_ex : EVP_DecryptInit_ex
        guard initialise(context, cipher, nil, nil, nil) == 1,
            EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, Int32(nonce.count), nil) == 1,
            initialise(context, nil, nil, key, nonce) == 1
        else {
            EVP_CIPHER_CTX_free(context)
            throw CryptoError(.malformed, "AES-GCM refused the key or nonce")
        }
        return context
    }
}
