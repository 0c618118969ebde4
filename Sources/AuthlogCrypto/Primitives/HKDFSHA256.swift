internal import COpenSSL

/// HKDF with HMAC-SHA-256 (RFC 5869) through OpenSSL's EVP_KDF interface.
public enum HKDFSHA256 {
    /// `length` bytes (1 to 255 × 32) of output keying material from `secret`, `salt` (an empty salt is a
    /// string of zeros, as RFC 5869 says) and `info`.
    /// - Throws: ``CryptoError`` `.internalFailure` when OpenSSL fails or `length` is out of range.
    public static func deriveKey(
        from secret: [UInt8],
        salt: [UInt8],
        info: [UInt8],
        length: Int = 32
    ) throws(CryptoError) -> [UInt8] {
        guard length > 0, length <= 255 * HMACSHA256.byteCount else {
            throw CryptoError(.internalFailure, "HKDF-SHA-256 gives 1 to 8,160 bytes")
        }
        var output = [UInt8](repeating: 0, count: length)
        let status = secret.withNonNullPointer { secretBytes, secretCount in
            salt.withNonNullPointer { saltBytes, saltCount in
                info.withNonNullPointer { infoBytes, infoCount in
                    authlog_hkdf_sha256(
                        secretBytes,
                        secretCount,
                        saltBytes,
                        saltCount,
                        infoBytes,
                        infoCount,
                        &output,
                        output.count
                    )
                }
            }
        }
        guard status == 1 else { throw CryptoError(.internalFailure, "HKDF-SHA-256 failed") }
        return output
    }
}
