import AuthlogCrypto

/// HKDF with HMAC-SHA-256 (RFC 5869), on AuthlogCrypto's HMAC (OpenSSL).
enum HKDF {
    /// `length` bytes (at most 255 × 32) of output keying material from `secret`, `salt` and `info`.
    /// - Throws: ``CryptoError`` `.internalFailure` when OpenSSL fails or `length` is too long.
    static func deriveKey(
        from secret: [UInt8],
        salt: [UInt8],
        info: [UInt8],
        length: Int = 32
    ) throws(CryptoError) -> [UInt8] {
        guard length > 0, length <= 255 * HMACSHA256.byteCount else {
            throw CryptoError(.internalFailure, "HKDF-SHA-256 gives 1 to 8,160 bytes")
        }
        // Extract: PRK = HMAC(salt, IKM); an empty salt is a string of zeros.
        let extractKey = salt.isEmpty ? [UInt8](repeating: 0, count: HMACSHA256.byteCount) : salt
        let pseudorandomKey = try HMACSHA256.authenticationCode(for: secret, key: extractKey)
        // Expand: T(i) = HMAC(PRK, T(i-1) ‖ info ‖ i).
        var output: [UInt8] = []
        var block: [UInt8] = []
        var counter: UInt8 = 1
        while output.count < length {
            block = try HMACSHA256.authenticationCode(for: block + info + [counter], key: pseudorandomKey)
            output += block
            counter &+= 1
        }
        return Array(output.prefix(length))
    }
}
