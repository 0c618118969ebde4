import AuthlogCore
import AuthlogCrypto
import AuthlogTesting
import Foundation
import Testing

/// providers.md §7 through HTTP: each hostile sign-in gets its status and `error` code, and is recorded
/// (the exact leeway boundaries, now ± 61 s, are tested with a fixed clock in AuthlogProvidersTests)
/// as `signin.failed` with the same reason — and nothing else is written.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct AttackMatrixTests {
    /// One hostile request: the provider, the body made from the harness, the expected answer and reason.
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let provider: String
        let status: Int
        let reason: String
        let body: @Sendable (ProofMaker) throws -> JSONValue
        var testDescription: String { self.name }
    }

    static let leeway: Int64 = 60
    static var now: Int64 { Int64(Date().timeIntervalSince1970) }

    static func appleToken(
        _ proofs: ProofMaker,
        raw: String,
        adjust: @escaping (inout [(name: String, value: JSONValue)]) -> Void
    )
        throws -> JSONValue
    {
        .members([
            "id_token": .string(try proofs.appleIDToken(rawNonce: raw, adjust: adjust)), "raw_nonce": .string(raw),
        ])
    }

    static func replace(_ name: String, with value: JSONValue) -> (inout [(name: String, value: JSONValue)]) -> Void {
        { claims in
            claims.removeAll { $0.name == name }
            claims.append((name, value))
        }
    }

    /// A token with a header chosen by the attacker and no valid signature.
    static func forged(
        header: JSONValue,
        payload: [(name: String, value: JSONValue)],
        signature: [UInt8] = []
    ) -> String {
        Base64URL.encode(header.canonicalBytes) + "." + Base64URL.encode(JSONValue.object(payload).canonicalBytes) + "."
            + Base64URL.encode(signature)
    }

    static let cases: [Case] = [
        Case(name: "alg none", provider: "apple", status: 401, reason: "unsupported_alg") { proofs in
            let raw = ProofMaker.rawNonce()
            let claims = FakeIdentityProvider.claims(
                issuer: Fixture.appleIssuer,
                audience: .string(Fixture.appleClient),
                subject: "x",
                nonce: Hex.encode(SHA256.hash(Array(raw.utf8)))
            )
            return .members([
                "id_token": .string(forged(header: .members(["alg": "none", "kid": "key-1"]), payload: claims)),
                "raw_nonce": .string(raw),
            ])
        },
        Case(
            name: "HS256 keyed with the provider's RSA public key",
            provider: "apple",
            status: 401,
            reason: "unsupported_alg"
        ) {
            proofs in
            let raw = ProofMaker.rawNonce()
            let claims = FakeIdentityProvider.claims(
                issuer: Fixture.appleIssuer,
                audience: .string(Fixture.appleClient),
                subject: "x",
                nonce: Hex.encode(SHA256.hash(Array(raw.utf8)))
            )
            let pem = try #require(proofs.providers.apple.key(kid: "key-1")).publicKeyPEM()
            let input =
                Base64URL.encode(JSONValue.members(["alg": "HS256", "kid": "key-1"]).canonicalBytes) + "."
                + Base64URL.encode(JSONValue.object(claims).canonicalBytes)
            let mac = try HMACSHA256.authenticationCode(for: Array(input.utf8), key: Array(pem.utf8))
            return .members(["id_token": .string(input + "." + Base64URL.encode(mac)), "raw_nonce": .string(raw)])
        },
        Case(name: "embedded jwk header", provider: "google", status: 401, reason: "forbidden_header") { proofs in
            let attacker = try PrivateKey.generate(for: .rs256)
            let claims = FakeIdentityProvider.claims(
                issuer: "https://accounts.google.com",
                audience: .string(Fixture.googleClient),
                subject: "x"
            )
            let jwk = try JWK(key: try attacker.publicKey(), kid: "key-1").json()
            let token = try proofs.providers.google.sign(claims, key: attacker, extraHeader: [("jwk", jwk)])
            return .members(["id_token": .string(token)])
        },
        Case(name: "jku header", provider: "google", status: 401, reason: "forbidden_header") { proofs in
            let claims = FakeIdentityProvider.claims(
                issuer: "https://accounts.google.com",
                audience: .string(Fixture.googleClient),
                subject: "x"
            )
            let token = try proofs.providers.google.sign(
                claims,
                extraHeader: [("jku", .string("https://evil.example/jwks"))]
            )
            return .members(["id_token": .string(token)])
        },
        Case(name: "issuer with a prefix trick", provider: "google", status: 401, reason: "issuer_mismatch") { proofs in
            .members([
                "id_token": .string(
                    try proofs.googleIDToken(adjust: replace("iss", with: .string("https://accounts.google.com.evil")))
                )
            ])
        },
        Case(name: "issuer of another provider", provider: "apple", status: 401, reason: "issuer_mismatch") { proofs in
            try appleToken(
                proofs,
                raw: ProofMaker.rawNonce(),
                adjust: replace("iss", with: .string("https://appleid.apple.co"))
            )
        },
        Case(name: "wrong audience", provider: "apple", status: 401, reason: "audience_mismatch") { proofs in
            try appleToken(proofs, raw: ProofMaker.rawNonce(), adjust: replace("aud", with: .string("com.other.app")))
        },
        Case(name: "array audience without azp", provider: "google", status: 401, reason: "azp_missing") { proofs in
            .members([
                "id_token": .string(
                    try proofs.googleIDToken(
                        adjust: replace("aud", with: .array([.string(Fixture.googleClient), .string("other-client")]))
                    )
                )
            ])
        },
        Case(name: "expired beyond the leeway", provider: "apple", status: 401, reason: "expired") { proofs in
            try appleToken(
                proofs,
                raw: ProofMaker.rawNonce(),
                adjust: replace("exp", with: .number(String(now - leeway - 1)))
            )
        },
        // Before, these overflowed in the claim checks and killed the process with the request unanswered.
        Case(name: "exp at Int64.max", provider: "apple", status: 401, reason: "invalid_claim") { proofs in
            try appleToken(proofs, raw: ProofMaker.rawNonce(), adjust: replace("exp", with: .number(String(Int64.max))))
        },
        Case(name: "nbf at Int64.min", provider: "google", status: 401, reason: "invalid_claim") { proofs in
            .members([
                "id_token": .string(try proofs.googleIDToken(adjust: replace("nbf", with: .number(String(Int64.min)))))
            ])
        },
        Case(name: "iat far in the past", provider: "apple", status: 401, reason: "invalid_claim") { proofs in
            try appleToken(proofs, raw: ProofMaker.rawNonce(), adjust: replace("iat", with: .number("-10000000000000")))
        },
        Case(name: "auth_time near Int64.max", provider: "google", status: 401, reason: "invalid_claim") { proofs in
            .members([
                "id_token": .string(
                    try proofs.googleIDToken(adjust: replace("auth_time", with: .number(String(Int64.max - 30))))
                )
            ])
        },
        Case(name: "not yet valid beyond the leeway", provider: "google", status: 401, reason: "not_yet_valid") {
            proofs in
            .members([
                "id_token": .string(
                    try proofs.googleIDToken(adjust: replace("nbf", with: .number(String(now + leeway + 30))))
                )
            ])
        },
        Case(name: "issued in the future", provider: "apple", status: 401, reason: "issued_in_future") { proofs in
            try appleToken(
                proofs,
                raw: ProofMaker.rawNonce(),
                adjust: replace("iat", with: .number(String(now + leeway + 30)))
            )
        },
        Case(name: "older than Apple's maximum age", provider: "apple", status: 401, reason: "too_old") { proofs in
            try appleToken(
                proofs,
                raw: ProofMaker.rawNonce(),
                adjust: replace("iat", with: .number(String(now - 600 - leeway - 5)))
            )
        },
        Case(name: "nonce mismatch", provider: "apple", status: 401, reason: "nonce_mismatch") { proofs in
            .members([
                "id_token": .string(try proofs.appleIDToken(rawNonce: "the-nonce-in-the-token")),
                "raw_nonce": .string("another-nonce"),
            ])
        },
        Case(name: "Apple token without a nonce", provider: "apple", status: 401, reason: "nonce_missing") { proofs in
            .members(["id_token": .string(try proofs.appleIDToken(rawNonce: nil))])
        },
        Case(name: "duplicate sub claim", provider: "google", status: 401, reason: "duplicate_member") { proofs in
            let key = try #require(proofs.providers.google.key(kid: "key-1"))
            let header = Base64URL.encode(JSONValue.members(["alg": "RS256", "kid": "key-1"]).canonicalBytes)
            let now = Self.now
            let payload = Base64URL.encode(
                Array(
                    """
                    {"iss":"https://accounts.google.com","aud":"\(Fixture.googleClient)","sub":"a","sub":"b","iat":\(now),"exp":\(now + 600)}
                    """.utf8
                )
            )
            let signature = try key.sign(Array("\(header).\(payload)".utf8))
            return .members(["id_token": .string("\(header).\(payload).\(Base64URL.encode(signature))")])
        },
        Case(name: "crit header", provider: "google", status: 401, reason: "forbidden_header") { proofs in
            let claims = FakeIdentityProvider.claims(
                issuer: "https://accounts.google.com",
                audience: .string(Fixture.googleClient),
                subject: "x"
            )
            return .members([
                "id_token": .string(
                    try proofs.providers.google.sign(claims, extraHeader: [("crit", .array([.string("x")]))])
                )
            ])
        },
        Case(name: "GitHub error inside HTTP 200", provider: "github", status: 401, reason: "provider_error") { _ in
            .members(["authorization_code": .string("a-code-github-never-issued")])
        },
        Case(name: "Kakao token of another app", provider: "kakao", status: 401, reason: "app_id_mismatch") { proofs in
            proofs.providers.kakao.registerAccessToken("kakao-foreign-token", for: .init(id: 77, appID: "999999"))
            return .members(["access_token": .string("kakao-foreign-token")])
        },
        Case(name: "Firebase Auth emulator token", provider: "firebase", status: 401, reason: "unsupported_alg") { _ in
            let issuer = "https://securetoken.google.com/\(Fixture.firebaseProject)"
            let claims = FakeIdentityProvider.claims(
                issuer: issuer,
                audience: .string(Fixture.firebaseProject),
                subject: "emulated",
                extra: [("firebase", .members(["sign_in_provider": .string("password")]))]
            )
            return .members([
                "id_token": .string(forged(header: .members(["alg": "none", "typ": "JWT"]), payload: claims))
            ])
        },
        Case(name: "Firebase token of another project", provider: "firebase", status: 401, reason: "issuer_mismatch") {
            proofs in
            let claims = FakeIdentityProvider.claims(
                issuer: "https://securetoken.google.com/other-project",
                audience: .string(Fixture.firebaseProject),
                subject: "u",
                extra: [("firebase", .members(["sign_in_provider": .string("password")]))]
            )
            return .members(["id_token": .string(try proofs.providers.firebase.sign(claims))])
        },
        Case(name: "no proof at all", provider: "google", status: 401, reason: "unsupported_proof") { _ in
            .members(["client_id": .string("x")])
        },
        Case(name: "a proof member of the wrong type", provider: "apple", status: 400, reason: "malformed_request") {
            _ in
            .members(["id_token": .number("42")])
        },
    ]

    @Test(arguments: Self.cases)
    func hostileSigninIsRefusedWithItsReason(_ attack: Case) async throws {
        try await ServerHarness.run { harness in
            let answer = try await harness.post(
                "/v1/signin/\(attack.provider)",
                try attack.body(ProofMaker(providers: harness.providers))
            )
            #expect(answer.status == attack.status, "\(String(decoding: answer.body, as: UTF8.self))")
            let expectedError = attack.status == 400 ? "invalid_request" : attack.reason
            #expect(answer.string("error") == expectedError)
            let events = try await harness.events()
            #expect(events.map(\.type) == ["signin.failed"])
            #expect(events.first?.reason == attack.reason)
            #expect(events.first?.provider == attack.provider)
            #expect(events.first?.stream == "signin-\(attack.provider)")
            #expect(events.first?.outcome == "failure")
            #expect(try await harness.count("SELECT count(*) FROM authlog.sessions") == 0)
            #expect(try await harness.count("SELECT count(*) FROM authlog.users") == 0)
        }
    }

    @Test func replayedNonceIsRefusedTheSecondTime() async throws {
        try await ServerHarness.run { harness in
            let proofs = ProofMaker(providers: harness.providers)
            let raw = ProofMaker.rawNonce()
            let body = JSONValue.members([
                "id_token": .string(try proofs.appleIDToken(rawNonce: raw)), "raw_nonce": .string(raw),
            ])
            #expect(try await harness.post("/v1/signin/apple", body).status == 200)
            let replay = try await harness.post("/v1/signin/apple", body)
            #expect(replay.status == 401)
            #expect(replay.string("error") == "nonce_replayed")
            #expect(try await harness.events().last?.reason == "nonce_replayed")
        }
    }

    @Test func serverIssuedNonceIsSingleUse() async throws {
        try await ServerHarness.run { harness in
            let issued = try await harness.client.send("POST", "/v1/nonces")
            #expect(issued.status == 200)
            let nonce = try #require(issued.string("nonce"))
            #expect(issued.string("expires_at") != nil)
            let proofs = ProofMaker(providers: harness.providers)
            let first = JSONValue.members([
                "id_token": .string(try proofs.googleIDToken(nonce: nonce)), "raw_nonce": .string(nonce),
            ])
            #expect(try await harness.post("/v1/signin/google", first).status == 200)
            // The same nonce in a new token (another flow) is still a replay.
            let second = JSONValue.members([
                "id_token": .string(try proofs.googleIDToken(subject: "other", nonce: nonce)),
                "raw_nonce": .string(nonce),
            ])
            #expect(try await harness.post("/v1/signin/google", second).string("error") == "nonce_replayed")
        }
    }

    @Test func unknownKidCausesExactlyOneRefetchThenRejection() async throws {
        try await ServerHarness.run { harness in
            let proofs = ProofMaker(providers: harness.providers)
            #expect(
                try await harness.post("/v1/signin/google", .members(["id_token": .string(try proofs.googleIDToken())]))
                    .status == 200
            )
            #expect(harness.providers.google.jwksFetches == 1)
            let stranger = try PrivateKey.generate(for: .rs256)
            for attempt in 0..<5 {
                let claims = FakeIdentityProvider.claims(
                    issuer: "https://accounts.google.com",
                    audience: .string(Fixture.googleClient),
                    subject: "x"
                )
                let token = try harness.providers.google.sign(claims, kid: "random-kid-\(attempt)", key: stranger)
                let answer = try await harness.post("/v1/signin/google", .members(["id_token": .string(token)]))
                #expect(answer.status == 401)
                #expect(answer.string("error") == "unknown_kid")
            }
            #expect(
                harness.providers.google.jwksFetches == 2,
                "one refetch for the first unknown kid, none within the cooldown"
            )
            let reasons = try await harness.events().compactMap(\.reason)
            #expect(reasons == Array(repeating: "unknown_kid", count: 5))
        }
    }

    @Test func oversizedBodyIsRefusedBeforeParsing() async throws {
        try await ServerHarness.run { harness in
            let padding = String(repeating: "a", count: 70_000)
            let answer = try await harness.client.send(
                "POST",
                "/v1/signin/apple",
                body: Array("{\"id_token\":\"\(padding)\"}".utf8),
                headers: [("Content-Type", "application/json")]
            )
            #expect(answer.status == 413)
            #expect(answer.string("error") == "request_too_large")
            let events = try await harness.events()
            #expect(events.map(\.type) == ["signin.failed"])
            #expect(events.first?.reason == "request_too_large")
        }
    }

    @Test func providerDownGives502AndNoPartialUserOrSession() async throws {
        try await ServerHarness.run { harness in
            harness.providers.apple.isDown = true
            let body = try ProofMaker(providers: harness.providers).validBody(for: "apple")
            let answer = try await harness.post("/v1/signin/apple", body)
            #expect(answer.status == 502)
            #expect(answer.string("error") == "provider_unavailable")
            #expect(answer.header("Retry-After") == "5")
            #expect(try await harness.events().map(\.reason) == ["provider_unavailable"])
            #expect(try await harness.count("SELECT count(*) FROM authlog.users") == 0)
            #expect(try await harness.count("SELECT count(*) FROM authlog.sessions") == 0)
            #expect(try await harness.count("SELECT count(*) FROM authlog.refresh_tokens") == 0)
            // GitHub's API down is the same answer.
            harness.providers.github.isDown = true
            let github = try await harness.post("/v1/signin/github", .members(["authorization_code": .string("c")]))
            #expect(github.status == 502)
            #expect(github.string("error") == "provider_unavailable")
        }
    }
}
