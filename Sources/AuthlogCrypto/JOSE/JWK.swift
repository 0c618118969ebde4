public import AuthlogCore

/// One key of a JWK set: the public key with its `kid`, `use` and `alg`.
public struct JWK: Sendable {
    /// The key id, when the JWK has one.
    public let kid: String?
    /// The algorithm the JWK declares, when it declares one.
    public let declaredAlgorithm: SignatureAlgorithm?
    /// The key.
    public let key: PublicKey

    /// Parses one JWK and checks that `kty`, `use` and `alg` agree: `use` absent or `sig`, `alg` absent or
    /// the algorithm of the key's type.
    /// - Throws: ``CryptoError`` `.invalidKey`, `.weakKey`.
    public init(json: JSONValue) throws(CryptoError) {
        if let use = json["use"], use.stringValue != "sig" {
            throw CryptoError(.invalidKey, "a signing key's use must be sig")
        }
        if let kid = json["kid"], kid.stringValue == nil { throw CryptoError(.invalidKey, "kid must be a string") }
        let key = try PublicKey(jwkMembers: json)
        var declared: SignatureAlgorithm?
        if let alg = json["alg"] {
            guard let name = alg.stringValue, let algorithm = SignatureAlgorithm(rawValue: name),
                algorithm == key.algorithm
            else { throw CryptoError(.invalidKey, "the JWK's alg does not fit its kty") }
            declared = algorithm
        }
        self.kid = json["kid"]?.stringValue
        self.declaredAlgorithm = declared
        self.key = key
    }

    /// Wraps a key with an id for publishing.
    public init(key: PublicKey, kid: String?) {
        self.kid = kid
        self.declaredAlgorithm = key.algorithm
        self.key = key
    }

    /// The public JWK: key members plus `kid`, `use: sig` and `alg`.
    /// - Throws: ``CryptoError`` `.internalFailure` if the key cannot be exported.
    public func json() throws(CryptoError) -> JSONValue {
        var members = try self.key.jwkMembers()
        if let kid = self.kid { members.append(("kid", .string(kid))) }
        members.append(("use", .string("sig")))
        members.append(("alg", .string(self.key.algorithm.rawValue)))
        return .object(members)
    }
}

/// A JWK set as providers publish it (`{"keys": [...]}`).
///
/// Keys that cannot be used (another `kty`, a malformed or weak key) are kept aside with the reason, so a
/// token naming one of them fails with that reason rather than as an unknown key.
public struct JWKSet: Sendable {
    /// The usable keys, in document order.
    public let keys: [JWK]
    /// The refused keys: their `kid` (if any) and why.
    public let refused: [(kid: String?, error: CryptoError)]

    /// Creates a set from usable keys.
    public init(keys: [JWK]) {
        self.keys = keys
        self.refused = []
    }

    /// Parses a JWKS document.
    /// - Throws: ``CryptoError`` `.malformed` when it is not `{"keys": [...]}` strict JSON,
    ///   `.duplicateMember` for a repeated member name.
    public init(jsonBytes: [UInt8]) throws(CryptoError) {
        let document = try JOSEJSON.parse(jsonBytes, what: "JWKS")
        guard case .array(let entries)? = document["keys"] else {
            throw CryptoError(.malformed, "a JWKS is an object with a keys array")
        }
        var keys: [JWK] = []
        var refused: [(String?, CryptoError)] = []
        for entry in entries {
            do {
                keys.append(try JWK(json: entry))
            } catch {
                refused.append((entry["kid"]?.stringValue, error))
            }
        }
        self.keys = keys
        self.refused = refused
    }

    /// The JWKS document of the usable keys.
    /// - Throws: ``CryptoError`` `.internalFailure` if a key cannot be exported.
    public func json() throws(CryptoError) -> JSONValue {
        var keys: [JSONValue] = []
        for key in self.keys { keys.append(try key.json()) }
        return .object([("keys", .array(keys))])
    }

    /// The key a token with header `kid` must be verified with. Without a `kid`, the one key of the set usable
    /// with `algorithm` (or the only key, when no algorithm is given).
    /// - Throws: ``CryptoError`` `.missingKid` when several keys exist and none is named, `.unknownKid`
    ///   when none matches, or the reason a matching key was refused.
    public func key(for kid: String?, algorithm: SignatureAlgorithm? = nil) throws(CryptoError) -> JWK {
        guard let kid else {
            // OpenID Connect Core §10.1: a token may omit kid when the set holds one key it can be checked with.
            let usable = self.keys.filter { algorithm == nil || $0.key.algorithm == algorithm }
            guard usable.count == 1, let only = usable.first else {
                if self.keys.isEmpty, let reason = self.refused.first?.error { throw reason }
                if usable.isEmpty, let first = self.keys.first { return first }
                throw CryptoError(.missingKid, "the key set has several keys and the token names none")
            }
            return only
        }
        if let match = self.keys.first(where: { $0.kid == kid }) { return match }
        if let refusal = self.refused.first(where: { $0.kid == kid }) { throw refusal.error }
        throw CryptoError(.unknownKid, "no key has the token's kid")
    }
}
