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

    /// Whether the key is of the OpenSSL type `name` (`RSA`, `EC`, `ED25519`).
    func isType(_ name: String) -> Bool { EVP_PKEY_is_a(self.pointer, name) == 1 }
}
