internal import COpenSSL

/// HMAC-SHA-256 through OpenSSL's EVP_MAC interface.
public enum HMACSHA256 {
    /// The tag length in bytes.
    public static let byteCount = 32

    /// The HMAC-SHA-256 tag of `message` under `key`.
    /// - Throws: ``CryptoError`` `.internalFailure` if OpenSSL fails.
    public static func authenticationCode(for message: [UInt8], key: [UInt8]) throws(CryptoError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Self.byteCount)
        var length = 0
        let status = key.withNonNullPointer { keyBytes, keyCount in
            message.withNonNullPointer { messageBytes, messageCount in
                EVP_Q_mac(
                    nil,
                    "HMAC",
                    nil,
                    "SHA256",
                    nil,
                    keyBytes,
                    keyCount,
                    messageBytes,
                    messageCount,
                    &output,
                    output.count,
                    &length
                )
            }
        }
        guard status != nil, length == Self.byteCount else {
            throw CryptoError(.internalFailure, "HMAC-SHA-256 failed")
        }
        return output
    }

    /// Whether `tag` is the HMAC-SHA-256 of `message` under `key`, compared in constant time.
    /// Tags shorter than 16 bytes are refused.
    public static func isValid(_ tag: [UInt8], for message: [UInt8], key: [UInt8]) -> Bool {
        guard tag.count >= 16, tag.count <= Self.byteCount,
            let expected = try? Self.authenticationCode(for: message, key: key)
        else { return false }
        return ConstantTime.equals(Array(expected.prefix(tag.count)), tag)
    }
}
