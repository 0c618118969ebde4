public import AuthlogCore
public import AuthlogCrypto

/// Makes DPoP proofs (RFC 9449) as a client would, for tests and the benchmark: one key, a fresh `jti` per
/// proof, and every member overridable so that an attacker's proofs can be made too.
public struct DPoPProofMaker: Sendable {
    /// The key proofs are signed with.
    public let key: PrivateKey
    /// The key's RFC 7638 thumbprint.
    public let thumbprint: String

    /// A maker with a new ES256 key (or `key`).
    /// - Throws: ``CryptoError`` when no key can be made.
    public init(key: PrivateKey? = nil) throws {
        self.key = try key ?? PrivateKey.generate(for: .es256)
        self.thumbprint = try self.key.publicKey().jwkThumbprint()
    }

    /// The public JWK of the key, with `extra` members.
    /// - Throws: ``CryptoError`` when the key cannot be exported.
    public func jwk(extra: [(String, JSONValue)] = []) throws -> JSONValue {
        .object(try self.key.publicKey().jwkMembers().map { ($0.name, $0.value) } + extra)
    }

    /// A proof for `method` `url`: `ath` of `accessToken`, `nonce`, `iat` at `issuedAt` (now), a random `jti`
    /// unless given; `header` and `extraClaims` replace or add members; `signer` signs instead of the key.
    /// - Throws: ``CryptoError`` when signing fails.
    public func proof(
        method: String = "POST",
        url: String,
        accessToken: String? = nil,
        nonce: String? = nil,
        issuedAt: Timestamp = .now(),
        jti: String? = nil,
        header: [(String, JSONValue)]? = nil,
        extraClaims: [(String, JSONValue)] = [],
        signer: PrivateKey? = nil
    ) throws -> String {
        let standard: [(String, JSONValue)] = [
            ("typ", .string("dpop+jwt")), ("alg", .string("ES256")), ("jwk", try self.jwk()),
        ]
        let header = header ?? standard
        let randomJTI = Base64URL.encode(try SecureRandom.bytes(count: 16))
        var claims: [(String, JSONValue)] = [
            ("jti", .string(jti ?? randomJTI)),
            ("htm", .string(method)), ("htu", .string(url)),
            ("iat", .number(String(issuedAt.microsecondsSinceEpoch / 1_000_000))),
        ]
        if let accessToken { claims.append(("ath", .string(Base64URL.encode(SHA256.hash(Array(accessToken.utf8)))))) }
        if let nonce { claims.append(("nonce", .string(nonce))) }
        for (name, value) in extraClaims {
            claims.removeAll { $0.0 == name }
            claims.append((name, value))
        }
        let input = Self.segment(.object(header)) + "." + Self.segment(.object(claims))
        return input + "." + Base64URL.encode(try (signer ?? self.key).sign(Array(input.utf8)))
    }

    /// One base64url JSON segment.
    public static func segment(_ json: JSONValue) -> String { Base64URL.encode(json.canonicalBytes) }
}
