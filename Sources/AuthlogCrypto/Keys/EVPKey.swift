internal import COpenSSL

/// Owns one `EVP_PKEY` and frees it exactly once.
///
/// `@unchecked Sendable`: the key is never modified after construction, and OpenSSL 3 allows one
/// `EVP_PKEY` to be used by several threads at once for signing and verifying, since every operation
/// makes its own `EVP_MD_CTX`.
final class EVPKey: @unchecked Sendable {
    let pointer: OpaquePointer  // <EVP_PKEY>

    /// Takes ownership of `pointer`.
    init(takingOwnership pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        EVP_PKEY_free(self.pointer)
    }

    /// The modulus or curve size in bits.
    var bits: Int { Int(EVP_PKEY_get_bits(self.pointer)) }

    /// The largest signature in bytes (the modulus length for RSA).
    var maximumSignatureSize: Int { Int(EVP_PKEY_get_size(self.pointer)) }

    /// Reads a PEM with `read` (`PEM_read_bio_PUBKEY`, `PEM_read_bio_PrivateKey`); `nil` when it is not one.
    static func readPEM(_ pem: String, with read: (OpaquePointer) -> OpaquePointer?) -> EVPKey? {
        // A memory BIO reads the caller's buffer in place, so it must not outlive withCString.
        let pointer: OpaquePointer? = pem.withCString { text in
            guard let bio = BIO_new_mem_buf(text, -1) else { return nil }
            defer { BIO_free(bio) }
            return read(bio)
        }
        return pointer.map { EVPKey(takingOwnership: $0) }
    }

    /// The PEM text `write` (`PEM_write_bio_PUBKEY`, `PEM_write_bio_PrivateKey`) puts in a memory BIO.
    /// - Throws: ``CryptoError`` `.internalFailure` when OpenSSL cannot write or read it.
    static func writePEM(_ write: (OpaquePointer) -> Int32) throws(CryptoError) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw CryptoError(.internalFailure, "out of memory") }
        defer { BIO_free(bio) }
        guard write(bio) == 1 else { throw CryptoError(.internalFailure, "cannot write the PEM") }
        var data: UnsafeMutablePointer<CChar>?
        let length = authlog_bio_get_mem_data(bio, &data)
        guard length > 0, let data else { throw CryptoError(.internalFailure, "cannot read the PEM") }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    /// Whether the key is of the OpenSSL type `name` (`RSA`, `EC`, `ED25519`).
    func isType(_ name: String) -> Bool { EVP_PKEY_is_a(self.pointer, name) == 1 }
}
