internal import COpenSSL

/// Cryptographically secure random bytes from OpenSSL's DRBG.
public enum SecureRandom {
    /// `count` random bytes.
    /// - Throws: ``CryptoError`` `.internalFailure` when the generator is not seeded.
    public static func bytes(count: Int) throws(CryptoError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: count)
        guard count == 0 || RAND_bytes(&output, Int32(count)) == 1 else {
            throw CryptoError(.internalFailure, "the random generator failed")
        }
        return output
    }

    /// A 256-bit opaque token in base64url (43 characters), for refresh tokens and nonces.
    /// - Throws: ``CryptoError`` `.internalFailure` when the generator fails.
    public static func opaqueToken() throws(CryptoError) -> String {
        Base64URL.encode(try Self.bytes(count: 32))
    }
}
