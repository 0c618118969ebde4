internal import COpenSSL

/// Conversions between JWS's raw ES256 signatures (`r‖s`, 32 bytes each) and the DER that OpenSSL uses.
enum ECDSASignature {
    /// The order n of P-256.
    static let p256Order: [UInt8] = [
        0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17, 0x9E, 0x84, 0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x51,
    ]

    /// DER for a raw 64-byte signature whose r and s are both in 1…n−1.
    static func der(fromRawP256 raw: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard raw.count == 64 else { throw CryptoError(.invalidSignature, "an ES256 signature is exactly 64 bytes") }
        let r = Array(raw.prefix(32))
        let s = Array(raw.suffix(32))
        for half in [r, s] {
            guard half.contains(where: { $0 != 0 }), half.lexicographicallyPrecedes(Self.p256Order) else {
                throw CryptoError(.invalidSignature, "ES256 r and s must lie in 1…n−1")
            }
        }
        guard let signature = ECDSA_SIG_new() else { throw CryptoError(.internalFailure, "out of memory") }
        defer { ECDSA_SIG_free(signature) }
        guard let bigR = BN_bin2bn(r, 32, nil) else { throw CryptoError(.internalFailure, "out of memory") }
        guard let bigS = BN_bin2bn(s, 32, nil) else {
            BN_free(bigR)
            throw CryptoError(.internalFailure, "out of memory")
        }
        guard ECDSA_SIG_set0(signature, bigR, bigS) == 1 else {
            BN_free(bigR)
            BN_free(bigS)
            throw CryptoError(.internalFailure, "cannot build an ECDSA signature")
        }
        var output: UnsafeMutablePointer<UInt8>?
        let length = i2d_ECDSA_SIG(signature, &output)
        guard length > 0, let output else { throw CryptoError(.internalFailure, "cannot encode an ECDSA signature") }
        defer { authlog_openssl_free(output) }
        return Array(UnsafeBufferPointer(start: output, count: Int(length)))
    }

    /// The raw 64-byte form of a DER signature made by OpenSSL.
    static func rawP256(fromDER der: [UInt8]) throws(CryptoError) -> [UInt8] {
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let parsed else { throw CryptoError(.internalFailure, "OpenSSL made an unreadable signature") }
        defer { ECDSA_SIG_free(parsed) }
        var output = [UInt8](repeating: 0, count: 64)
        guard let r = ECDSA_SIG_get0_r(parsed), let s = ECDSA_SIG_get0_s(parsed),
            BN_bn2binpad(r, &output, 32) == 32
        else { throw CryptoError(.internalFailure, "cannot read the signature") }
        let written = output.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.map { BN_bn2binpad(s, $0 + 32, 32) } ?? -1
        }
        guard written == 32 else { throw CryptoError(.internalFailure, "cannot read the signature") }
        return output
    }
}
