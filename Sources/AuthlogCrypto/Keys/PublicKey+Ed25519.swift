internal import COpenSSL

extension PublicKey {
    /// An Ed25519 public key from its 32 raw bytes (RFC 8032).
    /// - Throws: ``CryptoError`` `.invalidKey` when the bytes are not a key.
    public init(ed25519 raw: [UInt8]) throws(CryptoError) {
        guard raw.count == 32, let pointer = EVP_PKEY_new_raw_public_key_ex(nil, "ED25519", nil, raw, raw.count) else {
            throw CryptoError(.invalidKey, "an Ed25519 public key is 32 bytes")
        }
        try self.init(EVPKey(takingOwnership: pointer))
    }

    /// The 32 raw bytes of an Ed25519 public key.
    /// - Throws: ``CryptoError`` `.invalidKey` for a key of another type.
    public func ed25519Bytes() throws(CryptoError) -> [UInt8] {
        guard self.algorithm == .edDSA else { throw CryptoError(.invalidKey, "not an Ed25519 key") }
        var raw = [UInt8](repeating: 0, count: 32)
        var length = raw.count
        guard EVP_PKEY_get_raw_public_key(self.key.pointer, &raw, &length) == 1, length == 32 else {
            throw CryptoError(.internalFailure, "cannot export the Ed25519 key")
        }
        return raw
    }
}
