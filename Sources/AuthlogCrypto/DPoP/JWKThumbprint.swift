public import AuthlogCore

extension PublicKey {
    /// The key's JWK SHA-256 thumbprint (RFC 7638), base64url: the hash of its required JWK members in
    /// lexicographic order without whitespace. Computed from the key as exported, so two spellings of one key
    /// (padding, member order, extra members) have one thumbprint.
    /// - Throws: ``CryptoError`` `.internalFailure` if OpenSSL cannot export the key.
    public func jwkThumbprint() throws(CryptoError) -> String {
        let members = try self.jwkMembers()
        let required: [String]
        switch self.algorithm {
        case .rs256: required = ["e", "kty", "n"]
        case .es256: required = ["crv", "kty", "x", "y"]
        case .edDSA: required = ["crv", "kty", "x"]
        }
        // Every value is base64url or a fixed name, so none needs escaping.
        let fields = required.compactMap { name -> String? in
            guard let value = members.first(where: { $0.name == name })?.value.stringValue else { return nil }
            return "\"\(name)\":\"\(value)\""
        }
        guard fields.count == required.count else { throw CryptoError(.internalFailure, "cannot export the key") }
        return Base64URL.encode(SHA256.hash(Array(("{" + fields.joined(separator: ",") + "}").utf8)))
    }
}
