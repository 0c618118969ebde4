import AuthlogCore
import AuthlogCrypto
import Testing

/// DPoP proofs (RFC 9449) from an attacker's side: each forged, stale, misdirected or oversized proof is
/// refused with its exact reason, and a good proof names its key by its RFC 7638 thumbprint.
struct DPoPProofTests {
    static let deviceKey = try? PrivateKey.generate(for: .es256)
    static let thiefKey = try? PrivateKey.generate(for: .es256)
    static let now = Timestamp(microsecondsSinceEpoch: 1_796_000_000_000_000)
    static let tokenURL = "https://auth.example.com/v1/token/refresh"

    private let verifier = DPoPProofVerifier()
    private var request: DPoPRequest {
        get throws { DPoPRequest(method: "POST", target: try #require(DPoPTarget(Self.tokenURL))) }
    }

    private func segment(_ json: JSONValue) -> String { Base64URL.encode(json.canonicalBytes) }

    /// The public JWK members of `key`, plus `extra` members.
    private func jwk(_ key: PrivateKey, extra: [(String, JSONValue)] = []) throws -> JSONValue {
        .object(try key.publicKey().jwkMembers().map { ($0.name, $0.value) } + extra)
    }

    /// A proof with `header` members and `claims`, signed by `signer` over exactly what it carries.
    private func proof(
        header: [(String, JSONValue)]? = nil,
        claims: [(String, JSONValue)]? = nil,
        signer: PrivateKey? = nil
    ) throws -> String {
        let key = try #require(Self.deviceKey)
        let header = try header ?? [("typ", .string("dpop+jwt")), ("alg", .string("ES256")), ("jwk", self.jwk(key))]
        let claims =
            claims ?? [
                ("jti", .string("jti-\(UInt64.random(in: 0...UInt64.max))")), ("htm", .string("POST")),
                ("htu", .string(Self.tokenURL)), ("iat", .number("\(Self.now.microsecondsSinceEpoch / 1_000_000)")),
            ]
        let input = self.segment(.object(header)) + "." + self.segment(.object(claims))
        return input + "." + Base64URL.encode(try (signer ?? key).sign(Array(input.utf8)))
    }

    /// The claims of a good proof with `name` replaced by `value` (or removed when nil).
    private func claims(_ name: String, _ value: JSONValue?) -> [(String, JSONValue)] {
        var claims: [(String, JSONValue)] = [
            ("jti", .string("jti-1")), ("htm", .string("POST")), ("htu", .string(Self.tokenURL)),
            ("iat", .number("\(Self.now.microsecondsSinceEpoch / 1_000_000)")),
        ]
        claims.removeAll { $0.0 == name }
        if let value { claims.append((name, value)) }
        return claims
    }

    private func expectRefusal(
        _ proof: String,
        _ reason: DPoPRefusal.Reason,
        request: DPoPRequest? = nil,
        nonces: DPoPNonces? = nil
    ) throws {
        let request = try request ?? self.request
        #expect(throws: DPoPRefusal.self) {
            try self.verifier.verify(proof, for: request, nonces: nonces, at: Self.now)
        }
        do {
            _ = try self.verifier.verify(proof, for: request, nonces: nonces, at: Self.now)
        } catch {
            #expect(error.reason == reason, "expected \(reason), got \(error)")
        }
    }

    @Test func aGoodProofNamesItsKeyByThumbprint() throws {
        let key = try #require(Self.deviceKey)
        let proof = try self.verifier.verify(try self.proof(), for: try self.request, at: Self.now)
        #expect(proof.thumbprint == (try key.publicKey().jwkThumbprint()))
        #expect(proof.algorithm == .es256)
        try proof.requireKey(try key.publicKey().jwkThumbprint())
    }

    /// The replay ledger's key is one per (key, jti): the same proof twice is one key, the same jti from another
    /// key is another. The ledger keeps it until the proof could no longer verify.
    @Test func replayKeysAreOnePerKeyAndJTI() throws {
        let thief = try #require(Self.thiefKey)
        let claims = self.claims("jti", .string("same"))
        let first = try self.verifier.verify(try self.proof(claims: claims), for: try self.request, at: Self.now)
        let again = try self.verifier.verify(try self.proof(claims: claims), for: try self.request, at: Self.now)
        let header: [(String, JSONValue)] = [
            ("typ", .string("dpop+jwt")), ("alg", .string("ES256")), ("jwk", try self.jwk(thief)),
        ]
        let other = try self.verifier.verify(
            try self.proof(header: header, claims: claims, signer: thief),
            for: try self.request,
            at: Self.now
        )
        #expect(first.replayKey == again.replayKey)
        #expect(first.replayKey != other.replayKey)
        #expect(first.replayKey.count == 32)
        let end = self.verifier.lifetimeEnd(of: first)
        #expect(throws: DPoPRefusal.self) {
            try self.verifier.verify(try self.proof(claims: claims), for: try self.request, at: end)
        }
        _ = try self.verifier.verify(try self.proof(claims: claims), for: try self.request, at: end.adding(seconds: -1))
    }

    @Test func anEdDSAProofVerifies() throws {
        let key = try PrivateKey.generate(for: .edDSA)
        let header: [(String, JSONValue)] = [
            ("typ", .string("dpop+jwt")), ("alg", .string("EdDSA")), ("jwk", try self.jwk(key)),
        ]
        let proof = try self.verifier.verify(
            try self.proof(header: header, signer: key),
            for: try self.request,
            at: Self.now
        )
        #expect(proof.thumbprint == (try key.publicKey().jwkThumbprint()))
    }

    /// RFC 7638 §3.1's example key and thumbprint (joserfc computes the same).
    @Test func theThumbprintIsRFC7638s() throws {
        let n =
            "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3"
            + "oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdA"
            + "ZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-"
            + "kEgU8awapJzKnqDKgw"
        let jwk = try JWK(
            json: .object([
                ("kty", .string("RSA")), ("n", .string(n)), ("e", .string("AQAB")), ("kid", .string("2011-04-29")),
            ])
        )
        #expect(try jwk.key.jwkThumbprint() == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
    }

    @Test func aProofSignedByAnotherKeyIsRefused() throws {
        try self.expectRefusal(try self.proof(signer: try #require(Self.thiefKey)), .badSignature)
    }

    @Test func aProofOfAnotherKeyThanTheBindingIsRefused() throws {
        let thief = try #require(Self.thiefKey)
        let header: [(String, JSONValue)] = [
            ("typ", .string("dpop+jwt")), ("alg", .string("ES256")), ("jwk", try self.jwk(thief)),
        ]
        let proof = try self.verifier.verify(
            try self.proof(header: header, signer: thief),
            for: try self.request,
            at: Self.now
        )
        let bound = try #require(Self.deviceKey).publicKey().jwkThumbprint()
        #expect(throws: DPoPRefusal(.wrongKey, "the proof is signed by another key than the tokens are bound to")) {
            try proof.requireKey(bound)
        }
    }

    @Test func anHtuNamingAnotherRouteIsRefused() throws {
        let proof = try self.proof(claims: self.claims("htu", .string("https://auth.example.com/v1/logout")))
        try self.expectRefusal(proof, .urlMismatch)
    }

    @Test func anotherMethodIsRefused() throws {
        try self.expectRefusal(try self.proof(claims: self.claims("htm", .string("GET"))), .methodMismatch)
    }

    @Test func anIatAnHourOldIsRefused() throws {
        let hourAgo = Self.now.microsecondsSinceEpoch / 1_000_000 - 3_600
        try self.expectRefusal(try self.proof(claims: self.claims("iat", .number("\(hourAgo)"))), .staleIssuedAt)
    }

    @Test func anIatAMinuteAheadIsRefused() throws {
        let ahead = Self.now.microsecondsSinceEpoch / 1_000_000 + 60
        try self.expectRefusal(try self.proof(claims: self.claims("iat", .number("\(ahead)"))), .futureIssuedAt)
    }

    @Test func aMissingOrOldNonceIsRefusedWhenNoncesAreOn() throws {
        let nonces = try DPoPNonces(secret: [UInt8](repeating: 9, count: 32), rotationSeconds: 300)
        try self.expectRefusal(try self.proof(), .missingNonce, nonces: nonces)
        let old = nonces.current(at: Self.now.adding(seconds: -600))
        try self.expectRefusal(try self.proof(claims: self.claims("nonce", .string(old))), .staleNonce, nonces: nonces)
        #expect(DPoPRefusal(.missingNonce, "").oauthError == "use_dpop_nonce")
        #expect(DPoPRefusal(.staleNonce, "").oauthError == "use_dpop_nonce")
        #expect(DPoPRefusal(.badSignature, "").oauthError == "invalid_dpop_proof")
        let current = nonces.current(at: Self.now)
        let accepted = try self.verifier.verify(
            try self.proof(claims: self.claims("nonce", .string(current))),
            for: try self.request,
            nonces: nonces,
            at: Self.now
        )
        #expect(accepted.nonce == current)
    }

    /// Nonces come from the secret and the time slot: accepted in their slot and the next, never after, never
    /// from another secret, never altered.
    @Test func nonceSlotsRotate() throws {
        let nonces = try DPoPNonces(secret: [UInt8](repeating: 9, count: 32), rotationSeconds: 300)
        let other = try DPoPNonces(secret: [UInt8](repeating: 8, count: 32), rotationSeconds: 300)
        let slotStart = Timestamp(microsecondsSinceEpoch: (Self.now.microsecondsSinceEpoch / 300_000_000) * 300_000_000)
        let issued = nonces.current(at: slotStart.adding(seconds: 299))
        #expect(nonces.current(at: slotStart) == issued, "one nonce per slot")
        #expect(nonces.current(at: slotStart.adding(seconds: 300)) != issued, "the next slot has another")
        #expect(nonces.accepts(issued, at: slotStart.adding(seconds: 599)), "accepted through the next slot")
        #expect(!nonces.accepts(issued, at: slotStart.adding(seconds: 600)), "not two slots on")
        #expect(!nonces.accepts(issued, at: slotStart.adding(seconds: -1)), "not before its slot")
        #expect(!other.accepts(issued, at: slotStart), "another deployment's secret")
        var altered = try #require(Base64URL.decode(issued))
        altered[altered.count - 1] ^= 1
        #expect(!nonces.accepts(Base64URL.encode(altered), at: slotStart))
        #expect(!nonces.accepts("not a nonce", at: slotStart))
        #expect(!nonces.accepts(String(repeating: "A", count: 4096), at: slotStart))
    }

    @Test func algNoneIsRefused() throws {
        let key = try #require(Self.deviceKey)
        let header = self.segment(
            .object([("typ", .string("dpop+jwt")), ("alg", .string("none")), ("jwk", try self.jwk(key))])
        )
        try self.expectRefusal(
            header + "." + self.segment(.object(self.claims("jti", .string("x")))) + ".",
            .unsupportedAlgorithm
        )
    }

    /// HS256 keyed with the public key's own JWK text: a verifier that let the token pick its algorithm would
    /// accept it.
    @Test func anHMACSignedWithThePublicKeyIsRefused() throws {
        let key = try #require(Self.deviceKey)
        let jwk = try self.jwk(key)
        let input =
            self.segment(.object([("typ", .string("dpop+jwt")), ("alg", .string("HS256")), ("jwk", jwk)])) + "."
            + self.segment(.object(self.claims("jti", .string("x"))))
        let mac = try HMACSHA256.authenticationCode(for: Array(input.utf8), key: jwk.canonicalBytes)
        try self.expectRefusal(input + "." + Base64URL.encode(mac), .unsupportedAlgorithm)
    }

    @Test func aJWKCarryingAPrivatePartIsRefused() throws {
        let key = try #require(Self.deviceKey)
        let header: [(String, JSONValue)] = [
            ("typ", .string("dpop+jwt")), ("alg", .string("ES256")),
            ("jwk", try self.jwk(key, extra: [("d", .string(Base64URL.encode([UInt8](repeating: 1, count: 32))))])),
        ]
        try self.expectRefusal(try self.proof(header: header), .privateKey)
    }

    @Test func aTenKilobyteProofIsRefused() throws {
        let padding = String(repeating: "a", count: 10_000)
        try self.expectRefusal(try self.proof(claims: self.claims("pad", .string(padding))), .tooLarge)
    }

    @Test func anotherTypIsRefused() throws {
        let key = try #require(Self.deviceKey)
        let header: [(String, JSONValue)] = [
            ("typ", .string("JWT")), ("alg", .string("ES256")), ("jwk", try self.jwk(key)),
        ]
        try self.expectRefusal(try self.proof(header: header), .wrongType)
    }

    @Test func aKeyOfAnotherTypeThanAlgIsRefused() throws {
        let edKey = try PrivateKey.generate(for: .edDSA)
        let header: [(String, JSONValue)] = [
            ("typ", .string("dpop+jwt")), ("alg", .string("ES256")), ("jwk", try self.jwk(edKey)),
        ]
        try self.expectRefusal(try self.proof(header: header), .invalidKey)
    }

    @Test func aPointOffTheCurveIsRefused() throws {
        let key = try #require(Self.deviceKey)
        var members = try key.publicKey().jwkMembers().map { ($0.name, $0.value) }
        members.removeAll { $0.0 == "y" }
        members.append(("y", .string(Base64URL.encode([UInt8](repeating: 7, count: 32)))))
        let header: [(String, JSONValue)] = [
            ("typ", .string("dpop+jwt")), ("alg", .string("ES256")), ("jwk", .object(members)),
        ]
        try self.expectRefusal(try self.proof(header: header), .invalidKey)
    }

    @Test func aDuplicateHeaderMemberIsRefused() throws {
        let key = try #require(Self.deviceKey)
        let jwk = String(decoding: try self.jwk(key).canonicalBytes, as: UTF8.self)
        let header = #"{"typ":"dpop+jwt","alg":"ES256","alg":"ES256","jwk":"# + jwk + "}"
        let input = Base64URL.encode(Array(header.utf8)) + "." + self.segment(.object(self.claims("jti", .string("x"))))
        try self.expectRefusal(input + "." + Base64URL.encode(try key.sign(Array(input.utf8))), .malformed)
    }

    @Test func theAccessTokenHashMustMatch() throws {
        let request = DPoPRequest(method: "POST", target: try #require(DPoPTarget(Self.tokenURL)), accessToken: "at-1")
        let good = Base64URL.encode(SHA256.hash(Array("at-1".utf8)))
        _ = try self.verifier.verify(
            try self.proof(claims: self.claims("ath", .string(good))),
            for: request,
            at: Self.now
        )
        try self.expectRefusal(try self.proof(), .accessTokenMismatch, request: request)
        let other = Base64URL.encode(SHA256.hash(Array("at-2".utf8)))
        try self.expectRefusal(
            try self.proof(claims: self.claims("ath", .string(other))),
            .accessTokenMismatch,
            request: request
        )
    }

    @Test func targetsCompareAsRFC9449Says() throws {
        #expect(
            DPoPTarget("HTTPS://Auth.Example.COM:443/v1/token?x=1#f") == DPoPTarget("https://auth.example.com/v1/token")
        )
        #expect(DPoPTarget("http://[::1]:80/a") == DPoPTarget("http://[::1]/a"))
        #expect(DPoPTarget("https://auth.example.com/V1/token") != DPoPTarget("https://auth.example.com/v1/token"))
        #expect(DPoPTarget("https://auth.example.com:8443/v1") != DPoPTarget("https://auth.example.com/v1"))
        #expect(DPoPTarget("https://auth.example.com")?.normalized == "https://auth.example.com/")
        #expect(DPoPTarget("https://user@auth.example.com/v1") == nil)
        #expect(DPoPTarget("ftp://auth.example.com/v1") == nil)
        #expect(DPoPTarget("/v1/token") == nil)
    }
}
