import AuthlogCore
import AuthlogCrypto
import Testing

struct WycheproofTests {
    @Test func es256P1363() throws {
        guard let cases = try Wycheproof.cases("ecdsa_secp256r1_sha256_p1363_test.json") else { return }
        #expect(cases.count == 262)
        var keyCache: [String: PublicKey] = [:]
        for test in cases {
            guard let point = test.group["publicKey"], let wx = point["wx"]?.stringValue,
                let wy = point["wy"]?.stringValue,
                let xBytes = Hex.decode(wx), let yBytes = Hex.decode(wy)
            else {
                Issue.record("tc \(test.id): group without a key")
                continue
            }
            func coordinate(_ bytes: [UInt8]) -> String {
                let trimmed = Array(bytes.drop { $0 == 0 })
                return Base64URL.encode([UInt8](repeating: 0, count: max(0, 32 - trimmed.count)) + trimmed)
            }
            let x = coordinate(xBytes)
            let key: PublicKey
            if let cached = keyCache[x + wy] {
                key = cached
            } else {
                key = try JWK(
                    json: .object([
                        ("kty", .string("EC")), ("crv", .string("P-256")), ("x", .string(x)),
                        ("y", .string(coordinate(yBytes))),
                    ])
                ).key
                keyCache[x + wy] = key
            }
            let accepted = (try? key.verify(test.bytes("sig"), for: test.bytes("msg"), algorithm: .es256)) != nil
            // No acceptable cases in this file: every verdict is valid or invalid.
            #expect(accepted == (test.result == "valid"), "tc \(test.id) \(test.comment) \(test.flags)")
        }
    }

    @Test func rs256() throws {
        guard let cases = try Wycheproof.cases("rsa_signature_2048_sha256_test.json") else { return }
        #expect(cases.count == 259)
        for test in cases {
            guard let publicKey = test.group["publicKey"], let modulus = publicKey["modulus"]?.stringValue,
                let exponent = publicKey["publicExponent"]?.stringValue,
                let n = Hex.decode(modulus), let e = Hex.decode(exponent)
            else {
                Issue.record("tc \(test.id): group without a key")
                continue
            }
            let key = try JWK(
                json: .object([
                    ("kty", .string("RSA")), ("n", .string(Base64URL.encode(n.drop { $0 == 0 }))),
                    ("e", .string(Base64URL.encode(e.drop { $0 == 0 }))),
                ])
            ).key
            let accepted = (try? key.verify(test.bytes("sig"), for: test.bytes("msg"), algorithm: .rs256)) != nil
            switch test.result {
            case "valid": #expect(accepted, "tc \(test.id) \(test.comment)")
            case "invalid": #expect(!accepted, "tc \(test.id) \(test.comment) \(test.flags)")
            default:
                // tc 8 "Missing NULL in the ASN encoding" (MissingNull): a DigestInfo without the NULL
                // parameter. RFC 8017 allows verifiers to accept it; OpenSSL 3 rejects it, and authlog keeps
                // that: no JWS issuer emits such signatures, so refusing costs nothing.
                #expect(test.flags == ["MissingNull"], "an acceptable case nobody decided: tc \(test.id)")
                #expect(!accepted, "tc \(test.id): authlog refuses MissingNull signatures")
            }
        }
    }

    @Test func ed25519() throws {
        guard let cases = try Wycheproof.cases("ed25519_test.json") else { return }
        #expect(cases.count == 151)
        for test in cases {
            guard let x = test.group["publicKeyJwk"]?["x"]?.stringValue else {
                Issue.record("tc \(test.id): group without a JWK")
                continue
            }
            let key = try JWK(json: .object([("kty", .string("OKP")), ("crv", .string("Ed25519")), ("x", .string(x))]))
                .key
            let accepted = (try? key.verify(test.bytes("sig"), for: test.bytes("msg"), algorithm: .edDSA)) != nil
            #expect(accepted == (test.result == "valid"), "tc \(test.id) \(test.comment) \(test.flags)")
        }
    }

    @Test func hmacSHA256() throws {
        guard let cases = try Wycheproof.cases("hmac_sha256_test.json") else { return }
        #expect(cases.count == 174)
        for test in cases {
            let accepted = HMACSHA256.isValid(test.bytes("tag"), for: test.bytes("msg"), key: test.bytes("key"))
            // Tags shorter than 128 bits are refused by design, which turns the file's truncated-tag
            // cases that are valid for their length into rejections; those are counted apart below.
            let truncated = test.bytes("tag").count < 16
            if truncated {
                #expect(!accepted, "tc \(test.id): tags under 16 bytes are refused")
            } else {
                #expect(accepted == (test.result == "valid"), "tc \(test.id) \(test.comment) \(test.flags)")
            }
        }
        #expect(cases.contains { $0.result == "valid" && $0.bytes("tag").count == 32 })
    }

    @Test func aesGCM() throws {
        guard let cases = try Wycheproof.cases("aes_gcm_test.json") else { return }
        #expect(cases.count == 316)
        for test in cases {
            let box = AESGCM.SealedBox(nonce: test.bytes("iv"), ciphertext: test.bytes("ct"), tag: test.bytes("tag"))
            let opened = try? AESGCM.open(box, key: test.bytes("key"), authenticating: test.bytes("aad"))
            if test.bytes("iv").count > 128 {
                // OpenSSL's GCM takes nonces of at most 128 bytes. authlog seals with 96-bit nonces only, so
                // the file's valid cases with longer nonces are refused, deliberately.
                #expect(opened == nil, "tc \(test.id): nonces over 128 bytes are refused")
            } else if test.result == "valid" {
                #expect(opened == test.bytes("msg"), "tc \(test.id) \(test.comment)")
                let sealed = try? AESGCM.seal(
                    test.bytes("msg"),
                    key: test.bytes("key"),
                    nonce: test.bytes("iv"),
                    authenticating: test.bytes("aad")
                )
                #expect(sealed == box, "tc \(test.id): sealing reproduces the vector")
            } else {
                #expect(opened == nil, "tc \(test.id) \(test.comment) \(test.flags)")
            }
        }
    }
}
