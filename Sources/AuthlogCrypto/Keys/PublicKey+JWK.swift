public import AuthlogCore
internal import COpenSSL

extension PublicKey {
    /// Builds a key from the members of a JWK: RSA (`n`, `e`; 2048 bits or more), EC (`crv` `P-256`, `x`,
    /// `y`, the point checked to lie on the curve) or OKP (`crv` `Ed25519`, `x`).
    /// - Throws: ``CryptoError`` `.invalidKey` (malformed, private material, unsupported type or curve),
    ///   `.weakKey` (short RSA modulus).
    init(jwkMembers json: JSONValue) throws(CryptoError) {
        guard case .object = json else { throw CryptoError(.invalidKey, "a JWK is a JSON object") }
        for member in ["d", "p", "q", "dp", "dq", "qi", "k"] where json[member] != nil {
            throw CryptoError(.invalidKey, "a public key set must not carry private key material")
        }
        func bytes(_ name: String) throws(CryptoError) -> [UInt8] {
            guard let text = json[name]?.stringValue, let value = Base64URL.decode(text), !value.isEmpty else {
                throw CryptoError(.invalidKey, "JWK member \(name) must be non-empty base64url")
            }
            return value
        }
        switch json["kty"]?.stringValue {
        case "RSA":
            try self.init(EVPKey(takingOwnership: try Self.rsaKey(modulus: try bytes("n"), exponent: try bytes("e"))))
        case "EC":
            guard json["crv"]?.stringValue == "P-256" else {
                throw CryptoError(.invalidKey, "only the P-256 curve is accepted")
            }
            let x = try bytes("x")
            let y = try bytes("y")
            guard x.count == 32, y.count == 32 else {
                throw CryptoError(.invalidKey, "P-256 coordinates are 32 bytes each")
            }
            try self.init(EVPKey(takingOwnership: try Self.p256Key(point: [0x04] + x + y)))
        case "OKP":
            guard json["crv"]?.stringValue == "Ed25519" else {
                throw CryptoError(.invalidKey, "only the Ed25519 curve is accepted")
            }
            let x = try bytes("x")
            guard x.count == 32 else { throw CryptoError(.invalidKey, "an Ed25519 key is 32 bytes") }
            guard let pointer = EVP_PKEY_new_raw_public_key_ex(nil, "ED25519", nil, x, x.count) else {
                throw CryptoError(.invalidKey, "not an Ed25519 public key")
            }
            try self.init(EVPKey(takingOwnership: pointer))
        default:
            throw CryptoError(.invalidKey, "unsupported kty")
        }
    }

    /// The public JWK members (`kty`, and `n`/`e`, `crv`/`x`/`y` or `crv`/`x`).
    /// - Throws: ``CryptoError`` `.internalFailure` if OpenSSL cannot export the key.
    public func jwkMembers() throws(CryptoError) -> [(name: String, value: JSONValue)] {
        switch self.algorithm {
        case .rs256:
            return [
                ("kty", .string("RSA")), ("n", .string(Base64URL.encode(try self.bigNumber("n")))),
                ("e", .string(Base64URL.encode(try self.bigNumber("e")))),
            ]
        case .es256:
            var point = [UInt8](repeating: 0, count: 65)
            var length = 0
            guard EVP_PKEY_get_octet_string_param(self.key.pointer, "pub", &point, point.count, &length) == 1,
                length == 65, point[0] == 0x04
            else { throw CryptoError(.internalFailure, "cannot export the EC point") }
            return [
                ("kty", .string("EC")), ("crv", .string("P-256")), ("x", .string(Base64URL.encode(point[1...32]))),
                ("y", .string(Base64URL.encode(point[33...64]))),
            ]
        case .edDSA:
            var raw = [UInt8](repeating: 0, count: 32)
            var length = raw.count
            guard EVP_PKEY_get_raw_public_key(self.key.pointer, &raw, &length) == 1, length == 32 else {
                throw CryptoError(.internalFailure, "cannot export the Ed25519 key")
            }
            return [("kty", .string("OKP")), ("crv", .string("Ed25519")), ("x", .string(Base64URL.encode(raw)))]
        }
    }

    private func bigNumber(_ name: StaticString) throws(CryptoError) -> [UInt8] {
        var number: OpaquePointer?
        guard EVP_PKEY_get_bn_param(self.key.pointer, name.description, &number) == 1, let number else {
            throw CryptoError(.internalFailure, "cannot export the RSA key")
        }
        defer { BN_free(number) }
        var output = [UInt8](repeating: 0, count: Int(authlog_bn_num_bytes(number)))
        _ = BN_bn2bin(number, &output)
        return output
    }

    private static func rsaKey(modulus: [UInt8], exponent: [UInt8]) throws(CryptoError) -> OpaquePointer {
        guard let n = BN_bin2bn(modulus, Int32(modulus.count), nil) else {
            throw CryptoError(.internalFailure, "out of memory")
        }
        defer { BN_free(n) }
        guard let e = BN_bin2bn(exponent, Int32(exponent.count), nil) else {
            throw CryptoError(.internalFailure, "out of memory")
        }
        defer { BN_free(e) }
        guard authlog_bn_num_bits(n) >= 2048 else {
            throw CryptoError(.weakKey, "RSA keys under 2048 bits are refused")
        }
        return try Self.keyFromParameters(type: "RSA") { builder in
            OSSL_PARAM_BLD_push_BN(builder, Self.immortal("n"), n) == 1
                && OSSL_PARAM_BLD_push_BN(builder, Self.immortal("e"), e) == 1
        }
    }

    private static func p256Key(point: [UInt8]) throws(CryptoError) -> OpaquePointer {
        let key = try point.withUnsafeBufferPointer { (buffer) throws(CryptoError) -> OpaquePointer in
            try Self.keyFromParameters(type: "EC") { builder in
                OSSL_PARAM_BLD_push_utf8_string(builder, Self.immortal("group"), Self.immortal("prime256v1"), 0) == 1
                    && OSSL_PARAM_BLD_push_octet_string(builder, Self.immortal("pub"), buffer.baseAddress, buffer.count)
                        == 1
            }
        }
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else {
            EVP_PKEY_free(key)
            throw CryptoError(.internalFailure, "out of memory")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_public_check(context) == 1 else {
            EVP_PKEY_free(key)
            throw CryptoError(.invalidKey, "the EC point is not on P-256")
        }
        return key
    }

    /// A C string that lives as long as the program: `OSSL_PARAM_BLD_push_*` keeps the pointers it is given
    /// until `OSSL_PARAM_BLD_to_param`, so a temporary made from a Swift `String` would already be gone.
    private static func immortal(_ text: StaticString) -> UnsafePointer<CChar> {
        UnsafeRawPointer(text.utf8Start).assumingMemoryBound(to: CChar.self)
    }

    /// `EVP_PKEY_fromdata` for a public key whose parameters `push` adds; the builder keeps the pointers it
    /// is given until `OSSL_PARAM_BLD_to_param`, so every value must outlive this call.
    private static func keyFromParameters(
        type: StaticString,
        push: (OpaquePointer) -> Bool
    ) throws(CryptoError) -> OpaquePointer {
        guard let builder = OSSL_PARAM_BLD_new() else { throw CryptoError(.internalFailure, "out of memory") }
        defer { OSSL_PARAM_BLD_free(builder) }
        guard push(builder), let parameters = OSSL_PARAM_BLD_to_param(builder) else {
            throw CryptoError(.invalidKey, "cannot build the key parameters")
        }
        defer { OSSL_PARAM_free(parameters) }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, type.description, nil) else {
            throw CryptoError(.internalFailure, "out of memory")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_fromdata_init(context) == 1,
            EVP_PKEY_fromdata(context, &key, authlog_evp_pkey_public_key(), parameters) == 1, let key
        else { throw CryptoError(.invalidKey, "OpenSSL refused the key") }
        return key
    }
}

extension StaticString {
    fileprivate var description: String {
        self.withUTF8Buffer { String(decoding: $0, as: UTF8.self) }
    }
}
