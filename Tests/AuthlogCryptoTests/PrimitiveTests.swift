import AuthlogCore
import AuthlogCrypto
import Testing

struct Base64URLTests {
    @Test(arguments: [
        ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("\u{FB}\u{FF}", "w7vDvw"),
    ])
    func encodesWithoutPadding(plain: String, encoded: String) {
        #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
        #expect(Base64URL.decode(encoded) == Array(plain.utf8))
    }

    @Test(arguments: ["Zg==", "Zm9v\n", "Zm9v+", "Zm9v/", "Z", "Zh", "Zm9 v", "Zm9vYh"])
    func refusesPaddingOtherAlphabetsWhitespaceAndNonCanonicalBits(text: String) {
        #expect(Base64URL.decode(text) == nil)
    }
}

struct SymmetricTests {
    @Test func sealedBoxesOpenOnlyWithTheSameKeyAndAssociatedData() throws {
        let key = try SecureRandom.bytes(count: 32)
        let box = try AESGCM.seal(Array("jane@example.com".utf8), key: key, authenticating: Array("user-1".utf8))
        #expect(box.nonce.count == 12)
        #expect(try AESGCM.open(box, key: key, authenticating: Array("user-1".utf8)) == Array("jane@example.com".utf8))
        #expect(throws: CryptoError.self) { try AESGCM.open(box, key: key, authenticating: Array("user-2".utf8)) }
        #expect(throws: CryptoError.self) {
            try AESGCM.open(box, key: try SecureRandom.bytes(count: 32), authenticating: Array("user-1".utf8))
        }
        var tampered = box
        tampered.ciphertext[0] ^= 1
        #expect(throws: CryptoError.self) { try AESGCM.open(tampered, key: key, authenticating: Array("user-1".utf8)) }
        #expect(
            try AESGCM.open(
                try AESGCM.SealedBox(combined: box.combined),
                key: key,
                authenticating: Array("user-1".utf8)
            ).count == 16
        )
        #expect(try AESGCM.seal([], key: key).ciphertext.isEmpty)
    }

    @Test func nonceReuseIsAvoided() throws {
        let key = try SecureRandom.bytes(count: 32)
        let nonces = try (0..<200).map { _ in try AESGCM.seal([1, 2, 3], key: key).nonce }
        #expect(Set(nonces.map { Hex.encode($0) }).count == 200)
        #expect(throws: CryptoError.self) { try AESGCM.seal([1], key: [UInt8](repeating: 0, count: 16)) }
    }

    @Test func opaqueTokensAre256BitsOfBase64URL() throws {
        let token = try SecureRandom.opaqueToken()
        #expect(token.count == 43)
        #expect(Base64URL.decode(token)?.count == 32)
        #expect(try SecureRandom.opaqueToken() != token)
    }

    @Test func constantTimeComparisonComparesBytes() {
        #expect(ConstantTime.equals([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2]))
        #expect(ConstantTime.equals([], []))
    }
}

struct KeyTests {
    @Test(arguments: [SignatureAlgorithm.es256, .edDSA, .rs256])
    func keysRoundTripThroughPEMAndJWK(algorithm: SignatureAlgorithm) throws {
        let key = try PrivateKey.generate(for: algorithm)
        let restored = try PrivateKey(pem: try key.pemRepresentation())
        let message = Array("checkpoint 42".utf8)
        let signature = try restored.sign(message)
        let jwk = try JWK(key: key.publicKey(), kid: "a")
        let parsed = try JWK(json: try jwk.json())
        #expect(parsed.kid == "a")
        #expect(parsed.declaredAlgorithm == algorithm)
        #expect(throws: Never.self) { try parsed.key.verify(signature, for: message, algorithm: algorithm) }
        #expect(throws: CryptoError.self) { try parsed.key.verify(signature, for: message + [0], algorithm: algorithm) }
        if algorithm == .es256 { #expect(signature.count == 64) }
    }

    @Test func jwkConsistencyIsChecked() throws {
        let ec = try JWK(key: PrivateKey.generate(for: .es256).publicKey(), kid: "e").json()
        guard case .object(let members) = ec else { return }
        func variant(_ name: String, _ value: JSONValue?) -> JSONValue {
            var changed = members.filter { $0.name != name }
            if let value { changed.append((name, value)) }
            return .object(changed)
        }
        let cases: [(JSONValue, CryptoError.Code)] = [
            (variant("use", .string("enc")), .invalidKey),
            (variant("alg", .string("RS256")), .invalidKey),
            (variant("crv", .string("P-384")), .invalidKey),
            (variant("kty", .string("oct")), .invalidKey),
            (variant("d", .string("AAAA")), .invalidKey),
            (variant("y", .string(Base64URL.encode([UInt8](repeating: 1, count: 32)))), .invalidKey),
            (variant("x", .string("short")), .invalidKey),
        ]
        for (json, code) in cases {
            #expect(throws: CryptoError.self) { try JWK(json: json) }
            do {
                _ = try JWK(json: json)
            } catch {
                #expect(error.code == code, "\(json.canonicalText)")
            }
        }
    }

    @Test func aJWKSKeepsUnusableKeysAsideAndAnswersTheirReason() throws {
        let good = try JWK(key: PrivateKey.generate(for: .rs256).publicKey(), kid: "good").json()
        let document = JSONValue.object([
            (
                "keys",
                .array([good, .object([("kty", .string("oct")), ("kid", .string("sym")), ("k", .string("AAAA"))])])
            )
        ])
        let set = try JWKSet(jsonBytes: document.canonicalBytes)
        #expect(set.keys.map(\.kid) == ["good"])
        #expect(throws: CryptoError.self) { try set.key(for: "sym") }
        #expect(throws: CryptoError.self) { try JWKSet(jsonBytes: Array(#"{"keys":[],"keys":[]}"#.utf8)) }
    }
}
