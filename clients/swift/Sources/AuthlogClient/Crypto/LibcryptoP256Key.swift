#if canImport(CLibcrypto)
import CLibcrypto

/// A P-256 private key in the system's OpenSSL 3 libcrypto: the install's DPoP key on Linux. A token store keeps it
/// as its 32-byte private scalar (the bytes of CryptoKit's `P256.Signing.PrivateKey.rawRepresentation`), from which
/// ``init(privateScalar:)`` rebuilds it with its public point. Apple platforms use ``CryptoKitP256Key``.
///
/// `@unchecked Sendable`: `key` is set once in `init`, only read afterwards (each signature makes a context of its
/// own), which OpenSSL 3 documents as safe from several threads at once, and freed in `deinit`.
final class LibcryptoP256Key: DPoPSigningKey, @unchecked Sendable {
    private let key: OpaquePointer  // <EVP_PKEY>
    let publicKeyRawRepresentation: [UInt8]

    /// The private scalar of a new key from OpenSSL's generator (seeded from the kernel), 32 bytes big-endian.
    /// - Throws: ``AuthlogClientError`` `.dpopKeyUnavailable` when OpenSSL cannot make one.
    static func makePrivateScalar() throws(AuthlogClientError) -> [UInt8] {
        defer { ERR_clear_error() }
        guard let generated = authlog_client_generate_p256() else { throw Self.failure("cannot generate a key") }
        defer { EVP_PKEY_free(generated) }
        var scalar: OpaquePointer?  // <BIGNUM>
        guard EVP_PKEY_get_bn_param(generated, OSSL_PKEY_PARAM_PRIV_KEY, &scalar) == 1, let scalar else {
            throw Self.failure("cannot export the new key")
        }
        defer { BN_clear_free(scalar) }
        var bytes = [UInt8](repeating: 0, count: 32)
        guard BN_bn2binpad(scalar, &bytes, 32) == 32 else { throw Self.failure("cannot export the new key") }
        return bytes
    }

    /// The key whose private scalar is `privateScalar` (32 bytes big-endian, in 1…n−1), with its public point.
    /// - Throws: ``AuthlogClientError`` `.dpopKeyUnavailable` for bytes that are no P-256 private key.
    init(privateScalar: [UInt8]) throws(AuthlogClientError) {
        defer { ERR_clear_error() }
        guard privateScalar.count == 32 else { throw Self.failure("a P-256 private key is 32 bytes") }
        guard let group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1) else { throw Self.failure("no P-256") }
        defer { EC_GROUP_free(group) }
        // Secure memory, where OpenSSL has it: the parameters built from it are cleared when freed.
        guard let scalar = BN_secure_new(), BN_bin2bn(privateScalar, 32, scalar) != nil else {
            throw Self.failure("out of memory")
        }
        defer { BN_clear_free(scalar) }
        guard BN_is_zero(scalar) == 0, let order = EC_GROUP_get0_order(group), BN_cmp(scalar, order) < 0 else {
            throw Self.failure("the private key is not in 1…n−1")
        }
        guard let point = EC_POINT_new(group) else { throw Self.failure("out of memory") }
        defer { EC_POINT_free(point) }
        var encoded = [UInt8](repeating: 0, count: 65)
        guard EC_POINT_mul(group, point, scalar, nil, nil, nil) == 1,
            EC_POINT_point2oct(group, point, POINT_CONVERSION_UNCOMPRESSED, &encoded, 65, nil) == 65
        else { throw Self.failure("cannot compute the public key") }
        self.key = try Self.keyPair(scalar: scalar, point: encoded)
        self.publicKeyRawRepresentation = Array(encoded.dropFirst())
    }

    deinit {
        EVP_PKEY_free(self.key)
    }

    /// The ES256 signature of `message` (ECDSA over its SHA-256) as JOSE has it: `r‖s`, 32 bytes each.
    /// - Throws: ``AuthlogClientError`` `.dpopKeyUnavailable` when OpenSSL fails.
    func signature(of message: [UInt8]) throws(AuthlogClientError) -> [UInt8] {
        defer { ERR_clear_error() }
        guard let context = EVP_MD_CTX_new() else { throw Self.failure("out of memory") }
        defer { EVP_MD_CTX_free(context) }
        var length = Int(EVP_PKEY_get_size(self.key))
        var der = [UInt8](repeating: 0, count: max(length, 0))
        guard length > 0, EVP_DigestSignInit(context, nil, EVP_sha256(), nil, self.key) == 1,
            EVP_DigestSign(context, &der, &length, message, message.count) == 1
        else { throw Self.failure("cannot sign") }
        return try Self.rawSignature(fromDER: Array(der.prefix(length)))
    }

    /// The raw `r‖s` form of a DER ECDSA signature, each half left-padded to 32 bytes.
    private static func rawSignature(fromDER der: [UInt8]) throws(AuthlogClientError) -> [UInt8] {
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let parsed else { throw Self.failure("OpenSSL made an unreadable signature") }
        defer { ECDSA_SIG_free(parsed) }
        var raw = [UInt8](repeating: 0, count: 64)
        guard let r = ECDSA_SIG_get0_r(parsed), let s = ECDSA_SIG_get0_s(parsed) else {
            throw Self.failure("cannot read the signature")
        }
        let written = raw.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let start = buffer.baseAddress else { return false }
            return BN_bn2binpad(r, start, 32) == 32 && BN_bn2binpad(s, start + 32, 32) == 32
        }
        guard written else { throw Self.failure("cannot read the signature") }
        return raw
    }

    /// `EVP_PKEY_fromdata` for the key pair of `scalar` and its uncompressed `point`. The builder keeps the pointers
    /// it is given until `OSSL_PARAM_BLD_to_param`, so every value outlives that call here.
    private static func keyPair(scalar: OpaquePointer, point: [UInt8]) throws(AuthlogClientError) -> OpaquePointer {
        guard let builder = OSSL_PARAM_BLD_new() else { throw Self.failure("out of memory") }
        defer { OSSL_PARAM_BLD_free(builder) }
        let parameters = point.withUnsafeBufferPointer { buffer -> UnsafeMutablePointer<OSSL_PARAM>? in
            guard OSSL_PARAM_BLD_push_utf8_string(builder, Self.immortal("group"), Self.immortal("prime256v1"), 0) == 1,
                OSSL_PARAM_BLD_push_BN(builder, Self.immortal("priv"), scalar) == 1,
                OSSL_PARAM_BLD_push_octet_string(builder, Self.immortal("pub"), buffer.baseAddress, buffer.count) == 1
            else { return nil }
            return OSSL_PARAM_BLD_to_param(builder)
        }
        guard let parameters else { throw Self.failure("cannot build the key's parameters") }
        defer { OSSL_PARAM_free(parameters) }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { throw Self.failure("out of memory") }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_fromdata_init(context) == 1,
            EVP_PKEY_fromdata(context, &key, authlog_client_evp_pkey_keypair(), parameters) == 1, let key
        else { throw Self.failure("cannot import the key") }
        return key
    }

    /// A C string that lives as long as the program, for `OSSL_PARAM_BLD_push_*` (see ``keyPair(scalar:point:)``).
    private static func immortal(_ text: StaticString) -> UnsafePointer<CChar> {
        UnsafeRawPointer(text.utf8Start).assumingMemoryBound(to: CChar.self)
    }

    /// The error for a failed step (OpenSSL's error queue is cleared by the caller, not read into it).
    private static func failure(_ what: String) -> AuthlogClientError {
        AuthlogClientError(.dpopKeyUnavailable, detail: "The DPoP key: \(what) (OpenSSL).")
    }
}
#endif
