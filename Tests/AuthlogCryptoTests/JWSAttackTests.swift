import AuthlogCore
import AuthlogCrypto
import Testing

/// The JWS rows of the attack matrix in providers.md §7, each expecting its exact error code.
struct JWSAttackTests {
    static let rsaKey = try? PrivateKey.generate(for: .rs256)
    static let ecKey = try? PrivateKey.generate(for: .es256)

    private let claims = JSONValue.object([("iss", .string("https://appleid.apple.com")), ("sub", .string("001"))])

    private func rsa() throws -> PrivateKey { try #require(Self.rsaKey) }

    private func verifier(_ algorithm: SignatureAlgorithm = .rs256, keys: [JWK]? = nil) throws -> JWSVerifier {
        JWSVerifier(
            algorithm: algorithm,
            keys: JWKSet(keys: try keys ?? [JWK(key: try self.rsa().publicKey(), kid: "k1")])
        )
    }

    private func segment(_ json: String) -> String { Base64URL.encode(Array(json.utf8)) }

    /// A token with a hand-made header, signed by `key` over exactly what it carries.
    private func forge(header: String, payload: String? = nil, key: PrivateKey) throws -> String {
        let input =
            self.segment(header) + "." + (payload.map(self.segment) ?? Base64URL.encode(self.claims.canonicalBytes))
        return input + "." + Base64URL.encode(try key.sign(Array(input.utf8)))
    }

    private func expectRejection(_ token: String, _ code: CryptoError.Code, verifier: JWSVerifier? = nil) throws {
        let verifier = try verifier ?? self.verifier()
        #expect(throws: CryptoError.self) { try verifier.verify(token) }
        do {
            _ = try verifier.verify(token)
        } catch {
            #expect(error.code == code, "expected \(code), got \(error)")
        }
    }

    @Test func aProperlySignedTokenVerifies() throws {
        let token = try JWSSigner(key: self.rsa(), kid: "k1").sign(self.claims)
        let verified = try self.verifier().verify(token)
        #expect(verified.payload["sub"] == .string("001"))
        #expect(verified.keyID == "k1")
    }

    @Test func algNoneWithoutSignatureIsRefused() throws {
        let token =
            self.segment(#"{"alg":"none","kid":"k1"}"#) + "." + Base64URL.encode(self.claims.canonicalBytes) + "."
        try self.expectRejection(token, .unsupportedAlg)
    }

    @Test func anEmptySignatureIsRefused() throws {
        let token =
            self.segment(#"{"alg":"RS256","kid":"k1"}"#) + "." + Base64URL.encode(self.claims.canonicalBytes) + "."
        try self.expectRejection(token, .invalidSignature)
    }

    @Test func hs256SignedWithTheRSAPublicKeyIsRefused() throws {
        let publicPEM = try self.rsa().publicKeyPEM()
        let input = self.segment(#"{"alg":"HS256","kid":"k1"}"#) + "." + Base64URL.encode(self.claims.canonicalBytes)
        let mac = try HMACSHA256.authenticationCode(for: Array(input.utf8), key: Array(publicPEM.utf8))
        try self.expectRejection(input + "." + Base64URL.encode(mac), .unsupportedAlg)
    }

    @Test func anotherAlgorithmThanThePinnedOneIsRefused() throws {
        let es = try #require(Self.ecKey)
        try self.expectRejection(try JWSSigner(key: es, kid: "k1").sign(self.claims), .unsupportedAlg)
        try self.expectRejection(
            try self.forge(header: #"{"alg":"PS256","kid":"k1"}"#, key: self.rsa()),
            .unsupportedAlg
        )
        // An ES256 verifier given an RSA key never uses it.
        let mismatched = try self.verifier(.es256)
        try self.expectRejection(
            try JWSSigner(key: es, kid: "k1").sign(self.claims),
            .keyMismatch,
            verifier: mismatched
        )
    }

    @Test(arguments: ["jwk", "jku", "x5u", "x5c"])
    func embeddedOrRemoteKeysAreRefused(member: String) throws {
        let value =
            member == "x5c"
            ? #"["MIIB"]"#
            : (member == "jwk" ? #"{"kty":"RSA","n":"AQAB","e":"AQAB"}"# : #""https://evil.example/keys""#)
        let token = try self.forge(header: #"{"alg":"RS256","kid":"k1","\#(member)":\#(value)}"#, key: self.rsa())
        try self.expectRejection(token, .forbiddenHeader)
    }

    @Test func aDuplicateAlgIsRefused() throws {
        try self.expectRejection(
            try self.forge(header: #"{"alg":"none","alg":"RS256","kid":"k1"}"#, key: self.rsa()),
            .duplicateMember
        )
    }

    @Test func aDuplicateSubInTheSignedPayloadIsRefused() throws {
        let token = try self.forge(
            header: #"{"alg":"RS256","kid":"k1"}"#,
            payload: #"{"sub":"victim","sub":"attacker"}"#,
            key: self.rsa()
        )
        try self.expectRejection(token, .duplicateMember)
    }

    @Test(arguments: [#"["x"]"#, "[]"])
    func critIsRefused(value: String) throws {
        try self.expectRejection(
            try self.forge(header: #"{"alg":"RS256","kid":"k1","crit":\#(value)}"#, key: self.rsa()),
            .forbiddenHeader
        )
    }

    @Test func anOversizedTokenIsRefusedBeforeParsing() throws {
        let huge = String(repeating: "A", count: 1 << 20)
        try self.expectRejection(huge + "." + huge + "." + huge, .tooLarge)
        let padded = try self.forge(
            header: #"{"alg":"RS256","kid":"k1","pad":"\#(String(repeating: "x", count: 9000))"}"#,
            key: self.rsa()
        )
        try self.expectRejection(padded, .tooLarge)
    }

    @Test func jweAndWrongSegmentCountsAreMalformed() throws {
        try self.expectRejection("a.b.c.d.e", .malformed)
        try self.expectRejection("a.b", .malformed)
        try self.expectRejection("eyJhbGciOiJSUzI1NiJ9=.e30.c2ln", .malformed)
    }

    @Test func es256AllZeroDEREncodedAndWrongLengthSignaturesAreRefused() throws {
        let es = try #require(Self.ecKey)
        let verifier = try self.verifier(.es256, keys: [JWK(key: es.publicKey(), kid: "e1")])
        let input = self.segment(#"{"alg":"ES256","kid":"e1"}"#) + "." + Base64URL.encode(self.claims.canonicalBytes)
        let good = try es.sign(Array(input.utf8))
        #expect(throws: Never.self) { try verifier.verify(input + "." + Base64URL.encode(good)) }
        try self.expectRejection(
            input + "." + Base64URL.encode([UInt8](repeating: 0, count: 64)),
            .invalidSignature,
            verifier: verifier
        )
        let der = [0x30, 0x44, 0x02, 0x20] + good.prefix(32) + [0x02, 0x20] + good.suffix(32)
        try self.expectRejection(input + "." + Base64URL.encode(der), .invalidSignature, verifier: verifier)
        try self.expectRejection(input + "." + Base64URL.encode(good.prefix(63)), .invalidSignature, verifier: verifier)
        try self.expectRejection(input + "." + Base64URL.encode(good + [0]), .invalidSignature, verifier: verifier)
    }

    @Test func anRSASignatureShorterThanTheModulusIsRefused() throws {
        let input = self.segment(#"{"alg":"RS256","kid":"k1"}"#) + "." + Base64URL.encode(self.claims.canonicalBytes)
        let signature = try self.rsa().sign(Array(input.utf8))
        try self.expectRejection(input + "." + Base64URL.encode(signature.dropFirst()), .invalidSignature)
    }

    /// The public modulus of a 1024-bit RSA key (made once with Python's `cryptography`).
    static let weakModulus =
        "oU1w_W5tJG5TTsLq92HJxZt8-qe8ZzosIeLhA7yzdyailzDOqL2cuelQSq1yTsxgOEPIH-inmTM101pENy-k3Gd2DlKAYzLH51OeRjZeg3jtgZjdDJG36w2_9ur3sz9rJBr8FqJqSn2hSYvMxKoF_bwFRAwHjryZLuTCUc2LMu8"

    @Test func a1024BitRSAKeyIsWeak() throws {
        let document = #"{"keys":[{"kty":"RSA","kid":"weak","alg":"RS256","e":"AQAB","n":"\#(Self.weakModulus)"}]}"#
        let keys = try JWKSet(jsonBytes: Array(document.utf8))
        #expect(keys.keys.isEmpty)
        #expect(keys.refused.first?.error.code == .weakKey)
        let token = try self.forge(header: #"{"alg":"RS256","kid":"weak"}"#, key: self.rsa())
        try self.expectRejection(token, .weakKey, verifier: JWSVerifier(algorithm: .rs256, keys: keys))
        #expect(throws: CryptoError.self) { try PrivateKey.generate(for: .rs256, rsaBits: 1024) }
    }

    @Test func tamperedPayloadFailsTheSignature() throws {
        let token = try JWSSigner(key: self.rsa(), kid: "k1").sign(self.claims)
        let parts = token.split(separator: ".")
        let forged = parts[0] + "." + self.segment(#"{"iss":"https://appleid.apple.com","sub":"002"}"#) + "." + parts[2]
        try self.expectRejection(String(forged), .invalidSignature)
    }

    @Test func kidRulesFollowTheKeySet() throws {
        let other = try PrivateKey.generate(for: .rs256)
        let keys = [try JWK(key: self.rsa().publicKey(), kid: "k1"), try JWK(key: other.publicKey(), kid: "k2")]
        let verifier = try self.verifier(keys: keys)
        try self.expectRejection(
            try JWSSigner(key: self.rsa(), kid: nil).sign(self.claims),
            .missingKid,
            verifier: verifier
        )
        try self.expectRejection(
            try JWSSigner(key: self.rsa(), kid: "k9").sign(self.claims),
            .unknownKid,
            verifier: verifier
        )
        try self.expectRejection(
            try JWSSigner(key: self.rsa(), kid: "k2").sign(self.claims),
            .invalidSignature,
            verifier: verifier
        )
        #expect(throws: Never.self) { try verifier.verify(try JWSSigner(key: other, kid: "k2").sign(self.claims)) }
    }
}
