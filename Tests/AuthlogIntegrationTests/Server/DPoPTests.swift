import AuthlogCore
import AuthlogCrypto
import AuthlogServer
import AuthlogTesting
import Foundation
import Testing

/// DPoP (RFC 9449) end to end over HTTP and PostgreSQL: a sign-in with a proof binds its family and its access
/// tokens to the key; a thief holding the refresh token but not the key is refused with the exact reason,
/// recorded, and ends nothing for the user.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct DPoPTests {
    /// A device's key, and the requests it signs.
    struct Device {
        let harness: ServerHarness
        let maker: DPoPProofMaker

        init(_ harness: ServerHarness) throws {
            self.harness = harness
            self.maker = try DPoPProofMaker()
        }

        func url(_ path: String) -> String { self.harness.client.baseURL + path }

        func proof(_ path: String, accessToken: String? = nil, nonce: String? = nil) throws -> String {
            try self.maker.proof(url: self.url(path), accessToken: accessToken, nonce: nonce)
        }

        func signIn(
            _ subject: String = "alice",
            proof: String? = nil,
            clientID: String? = nil
        ) async throws
            -> HTTPTestClient.Answer
        {
            var body: [(name: String, value: JSONValue)] = [("subject", .string(subject))]
            if let clientID { body.append(("client_id", .string(clientID))) }
            return try await self.harness.post(
                "/v1/signin/dev",
                .object(body),
                headers: ServerHarness.appHeaders + [("DPoP", try proof ?? self.proof("/v1/signin/dev"))]
            )
        }

        func refresh(_ token: String, proof: String?) async throws -> HTTPTestClient.Answer {
            try await self.harness.post(
                "/v1/token/refresh",
                .members(["refresh_token": .string(token)]),
                headers: ServerHarness.appHeaders + (proof.map { [("DPoP", $0)] } ?? [])
            )
        }

        func refresh(_ token: String) async throws -> HTTPTestClient.Answer {
            try await self.refresh(token, proof: try self.proof("/v1/token/refresh"))
        }

        /// The entries of `GET /v1/me/activity` with `access` (bound to this device's key), newest first.
        func activity(with access: String) async throws -> [JSONValue] {
            let answer = try await self.harness.client.send(
                "GET",
                "/v1/me/activity",
                headers: ServerHarness.appHeaders + [
                    ("Authorization", "DPoP \(access)"),
                    (
                        "DPoP",
                        try self.maker.proof(method: "GET", url: self.url("/v1/me/activity"), accessToken: access)
                    ),
                ]
            )
            #expect(answer.status == 200, "\(answer.json)")
            return answer.json["activity"]?.arrayValue ?? []
        }
    }

    /// The claims of a JWT, unchecked.
    static func claims(of jwt: String) throws -> JSONValue {
        let parts = jwt.split(separator: ".")
        return try JSONParser().parse(try #require(Base64URL.decode(String(parts[1]))))
    }

    static func expectRefusal(_ answer: HTTPTestClient.Answer, _ reason: String, status: Int = 401) {
        #expect(answer.status == status, "\(answer.json)")
        #expect(answer.string("error") == (reason.hasPrefix("dpop_nonce") ? "use_dpop_nonce" : "invalid_dpop_proof"))
        #expect(answer.string("reason") == reason)
        #expect(answer.header("WWW-Authenticate")?.hasPrefix("DPoP ") == true)
    }

    @Test func aSigninWithAProofBindsTheFamilyTheAccessTokensAndTheEvents() async throws {
        try await ServerHarness.run { harness in
            let device = try Device(harness)
            let signin = try await device.signIn()
            #expect(signin.status == 200)
            #expect(signin.string("token_type") == "DPoP")
            let access = try #require(signin.string("access_token"))
            #expect(try Self.claims(of: access)["cnf"] == .object([("jkt", .string(device.maker.thumbprint))]))
            let refreshed = try await device.refresh(try #require(signin.string("refresh_token")))
            #expect(refreshed.status == 200)
            #expect(refreshed.string("token_type") == "DPoP")
            let newAccess = try #require(refreshed.string("access_token"))
            #expect(try Self.claims(of: newAccess)["cnf"]?["jkt"]?.stringValue == device.maker.thumbprint)
            let issued = try #require(try await harness.events(ofType: "token.issued").first)
            #expect(issued.data["dpop_jkt"]?.stringValue == device.maker.thumbprint)
            let rotation = try #require(try await harness.events(ofType: "token.refreshed").first)
            #expect(rotation.data["dpop_jkt"]?.stringValue == device.maker.thumbprint)
            #expect(
                try await harness.count("SELECT count(*) FROM authlog.refresh_tokens WHERE dpop_jkt IS NOT NULL") == 2
            )
            // Introspection tells a resource server which key to expect, for both kinds of token.
            #expect(try await harness.introspect(newAccess)["cnf"]?["jkt"]?.stringValue == device.maker.thumbprint)
            let refreshToken = try #require(refreshed.string("refresh_token"))
            #expect(try await harness.introspect(refreshToken)["cnf"]?["jkt"]?.stringValue == device.maker.thumbprint)
            // A sign-in without a proof stays a Bearer one under the default `optional`.
            let bearer = try await harness.post("/v1/signin/dev", .members(["subject": .string("bob")]))
            #expect(bearer.string("token_type") == "Bearer")
            #expect(try Self.claims(of: try #require(bearer.string("access_token")))["cnf"] == nil)
        }
    }

    @Test func aThiefsRefreshWithoutTheKeyOrWithAnotherIsRefusedRecordedShownAndEndsNothing() async throws {
        try await ServerHarness.run { harness in
            let device = try Device(harness)
            let thief = try Device(harness)
            let signin = try await device.signIn()
            let stolen = try #require(signin.string("refresh_token"))
            // The user refreshes first: the stolen token is now spent. Without DPoP its replay would be reuse and
            // would revoke the user's family.
            let rotated = try await device.refresh(stolen)
            #expect(rotated.status == 200)
            Self.expectRefusal(try await thief.refresh(stolen, proof: nil), "dpop_missing")
            Self.expectRefusal(try await thief.refresh(stolen), "dpop_wrong_key")
            let current = try #require(rotated.string("refresh_token"))
            Self.expectRefusal(try await thief.refresh(current), "dpop_wrong_key")
            let failures = try await harness.events(ofType: "token.refresh_failed")
            #expect(failures.map(\.reason) == ["dpop_missing", "dpop_wrong_key", "dpop_wrong_key"])
            #expect(failures.allSatisfy { $0.outcome == "failure" && $0.data["token_id"] != nil })
            #expect(try await harness.events(ofType: "token.reuse_detected").isEmpty)
            // The user's session goes on, and the user sees the thief's refused refreshes in their activity.
            let next = try await device.refresh(current)
            #expect(next.status == 200)
            #expect(try await harness.count("SELECT count(*) FROM authlog.sessions WHERE state = 'active'") == 1)
            let entries = try await device.activity(with: try #require(next.string("access_token")))
            let refused = entries.filter { $0["type"]?.stringValue == "token.refresh_failed" }
            #expect(
                refused.compactMap { $0["reason"]?.stringValue } == [
                    "dpop_wrong_key", "dpop_wrong_key", "dpop_missing",
                ]
            )
        }
    }

    /// A bound refresh token of a session that has ended (here revoked by a client), sent again and again without
    /// a proof, is refused and recorded within its family's limit (`rate_limits.per_family`), not one event per
    /// request up to the address limit: nobody's refreshes need that family any more.
    @Test func aBoundTokenOfAnEndedSessionIsRefusedWithinItsFamilysLimit() async throws {
        try await ServerHarness.run(adjust: ServerHarness.defaultLimits) { harness in
            let device = try Device(harness)
            let signin = try await device.signIn()
            let leaked = try #require(signin.string("refresh_token"))
            #expect(try await harness.oauth("/oauth/revoke", "token=\(leaked)").status == 200)
            var statuses: [Int] = []
            for _ in 0..<20 { statuses.append(try await device.refresh(leaked, proof: nil).status) }
            let recorded = statuses.filter { $0 == 401 }.count
            #expect(statuses.contains(429), "the family's limit applies: \(statuses)")
            #expect(recorded >= 1 && recorded < 20 && recorded + statuses.filter { $0 == 429 }.count == 20)
            let failures = try await harness.events(ofType: "token.refresh_failed")
            #expect(failures.count == recorded, "each answered refusal recorded, none of the limited ones")
        }
    }

    @Test func aProofForAnUnboundFamilyIsRefusedUnderOptional() async throws {
        try await ServerHarness.run { harness in
            let device = try Device(harness)
            let signin = try await harness.post("/v1/signin/dev", .members(["subject": .string("alice")]))
            let token = try #require(signin.string("refresh_token"))
            Self.expectRefusal(try await device.refresh(token), "dpop_family_unbound")
            #expect(try await harness.events(ofType: "token.refresh_failed").map(\.reason) == ["dpop_family_unbound"])
            // The Bearer family still refreshes as before, and stays unbound.
            let refreshed = try await harness.refresh(token)
            #expect(refreshed.status == 200)
            #expect(refreshed.string("token_type") == "Bearer")
            // Its spent token is judged by its state whatever header comes with it: within the grace window, the
            // same successor pair (past it, reuse), never dpop_family_unbound.
            let replayed = try await device.refresh(token)
            #expect(replayed.status == 200)
            #expect(replayed.string("refresh_token") == refreshed.string("refresh_token"))
            // A Bearer access token sent under the DPoP scheme is refused (RFC 9449 §7.1).
            let access = try #require(refreshed.string("access_token"))
            let sessions = try await harness.client.send(
                "GET",
                "/v1/me/sessions",
                headers: ServerHarness.appHeaders + [
                    ("Authorization", "DPoP \(access)"),
                    (
                        "DPoP",
                        try device.maker.proof(method: "GET", url: device.url("/v1/me/sessions"), accessToken: access)
                    ),
                ]
            )
            Self.expectRefusal(sessions, "dpop_family_unbound")
        }
    }

    /// The attacker's proofs at a bound family's refresh, each refused with its exact reason and recorded.
    @Test func forgedProofsAreRefusedWithTheirReasons() async throws {
        try await ServerHarness.run { harness in
            let device = try Device(harness)
            let token = try #require(try await device.signIn().string("refresh_token"))
            let url = device.url("/v1/token/refresh")
            let maker = device.maker
            let jwk = try maker.jwk()
            let hourAgo = Timestamp.now().adding(seconds: -3600)
            let hmacInput =
                DPoPProofMaker.segment(
                    .object([("typ", .string("dpop+jwt")), ("alg", .string("HS256")), ("jwk", jwk)])
                )
                + "." + DPoPProofMaker.segment(.object([("jti", .string("j")), ("htm", .string("POST"))]))
            let hmac = try HMACSHA256.authenticationCode(for: Array(hmacInput.utf8), key: jwk.canonicalBytes)
            let noneProof =
                DPoPProofMaker.segment(.object([("typ", .string("dpop+jwt")), ("alg", .string("none")), ("jwk", jwk)]))
                + "." + DPoPProofMaker.segment(.object([("jti", .string("j")), ("htm", .string("POST"))])) + "."
            let privateJWK = try maker.jwk(extra: [("d", .string(Base64URL.encode(Array(repeating: 1, count: 32))))])
            let cases: [(String, String)] = [
                (try maker.proof(url: device.url("/v1/logout")), "dpop_htu_mismatch"),
                (try maker.proof(method: "GET", url: url), "dpop_htm_mismatch"),
                (try maker.proof(url: url, issuedAt: hourAgo), "dpop_iat_stale"),
                (noneProof, "dpop_unsupported_alg"),
                (hmacInput + "." + Base64URL.encode(hmac), "dpop_unsupported_alg"),
                (
                    try maker.proof(
                        url: url,
                        header: [("typ", .string("dpop+jwt")), ("alg", .string("ES256")), ("jwk", privateJWK)]
                    ), "dpop_private_key"
                ),
                (
                    try maker.proof(url: url, extraClaims: [("pad", .string(String(repeating: "a", count: 10_000)))]),
                    "dpop_too_large"
                ),
                (try maker.proof(url: url, signer: try PrivateKey.generate(for: .es256)), "dpop_bad_signature"),
            ]
            for (proof, reason) in cases {
                Self.expectRefusal(try await device.refresh(token, proof: proof), reason)
            }
            let recorded = try await harness.events(ofType: "token.refresh_failed").map(\.reason)
            #expect(recorded == cases.map { Optional($0.1) })
            // None of them ended anything.
            #expect(try await device.refresh(token).status == 200)
        }
    }

    @Test func aReplayedProofIsRefusedOnce() async throws {
        try await ServerHarness.run { harness in
            let device = try Device(harness)
            let signin = try await device.signIn()
            let proof = try device.proof("/v1/token/refresh")
            let first = try await device.refresh(try #require(signin.string("refresh_token")), proof: proof)
            #expect(first.status == 200)
            let next = try #require(first.string("refresh_token"))
            Self.expectRefusal(try await device.refresh(next, proof: proof), "dpop_replayed")
            #expect(try await harness.events(ofType: "token.refresh_failed").map(\.reason) == ["dpop_replayed"])
            #expect(try await harness.count("SELECT count(*) FROM authlog.dpop_proofs") == 2)
            #expect(try await device.refresh(next).status == 200)
        }
    }

    @Test func aBoundAccessTokenNeedsAProofByItsKeyThatHashesIt() async throws {
        try await ServerHarness.run { harness in
            let device = try Device(harness)
            let thief = try Device(harness)
            let access = try #require(try await device.signIn().string("access_token"))
            func me(_ proof: String?, scheme: String = "DPoP") async throws -> HTTPTestClient.Answer {
                try await harness.client.send(
                    "GET",
                    "/v1/me/sessions",
                    headers: ServerHarness.appHeaders + [("Authorization", "\(scheme) \(access)")]
                        + (proof.map { [("DPoP", $0)] } ?? [])
                )
            }
            Self.expectRefusal(try await me(nil, scheme: "Bearer"), "dpop_missing")
            let sessions = device.url("/v1/me/sessions")
            Self.expectRefusal(try await me(try device.maker.proof(method: "GET", url: sessions)), "dpop_ath_mismatch")
            Self.expectRefusal(
                try await me(try device.maker.proof(method: "GET", url: sessions, accessToken: access + "x")),
                "dpop_ath_mismatch"
            )
            Self.expectRefusal(
                try await me(try thief.maker.proof(method: "GET", url: sessions, accessToken: access)),
                "dpop_wrong_key"
            )
            let good = try device.maker.proof(method: "GET", url: sessions, accessToken: access)
            // The right proof does not make a Bearer of a bound token (RFC 9449 §7.2).
            Self.expectRefusal(try await me(good, scheme: "Bearer"), "dpop_missing")
            let fresh = try device.maker.proof(method: "GET", url: sessions, accessToken: access)
            #expect(try await me(fresh).status == 200)
            Self.expectRefusal(try await me(fresh), "dpop_replayed")
            let logout = try await harness.client.send(
                "POST",
                "/v1/logout",
                headers: ServerHarness.appHeaders + [
                    ("Authorization", "DPoP \(access)"),
                    ("DPoP", try device.proof("/v1/logout", accessToken: access)),
                ]
            )
            #expect(logout.status == 204)
        }
    }

    @Test func nonceModeAsksForTheServersNonceOnceAndAcceptsIt() async throws {
        let nonces: (inout ServerConfiguration) -> Void = { $0.dpop = Self.section(nonces: true) }
        try await ServerHarness.run(adjust: nonces) { harness in
            let device = try Device(harness)
            let first = try await device.signIn()
            Self.expectRefusal(first, "dpop_nonce_missing", status: 400)
            let nonce = try #require(first.header("DPoP-Nonce"))
            let stale = try await device.signIn(proof: try device.proof("/v1/signin/dev", nonce: "AAAA"))
            Self.expectRefusal(stale, "dpop_nonce_stale", status: 400)
            let signin = try await device.signIn(proof: try device.proof("/v1/signin/dev", nonce: nonce))
            #expect(signin.status == 200)
            #expect(signin.header("DPoP-Nonce") == nonce)
            let reasons = try await harness.events(ofType: "signin.failed").map(\.reason)
            #expect(reasons == ["dpop_nonce_missing", "dpop_nonce_stale"])
            let token = try #require(signin.string("refresh_token"))
            Self.expectRefusal(try await device.refresh(token), "dpop_nonce_missing", status: 400)
            let proof = try device.proof("/v1/token/refresh", nonce: nonce)
            #expect(try await device.refresh(token, proof: proof).status == 200)
        }
    }

    @Test func aClientThatRequiresDPoPIsRefusedASigninWithoutAProof() async throws {
        let strict: (inout ServerConfiguration) -> Void = { $0.dpop = Self.section(required: "com.example.strict") }
        try await ServerHarness.run(adjust: strict) { harness in
            let bare = try await harness.post(
                "/v1/signin/dev",
                .members(["subject": .string("alice"), "client_id": .string("com.example.strict")])
            )
            Self.expectRefusal(bare, "dpop_missing")
            let failed = try #require(try await harness.events(ofType: "signin.failed").first)
            #expect(failed.reason == "dpop_missing")
            #expect(failed.clientID == "com.example.strict")
            // Another client is still `optional`; the strict one signs in with a proof.
            let other = try await harness.post("/v1/signin/dev", .members(["subject": .string("bob")]))
            #expect(other.status == 200)
            let device = try Device(harness)
            #expect(try await device.signIn(clientID: "com.example.strict").string("token_type") == "DPoP")
        }
    }

    @Test func discoveryAdvertisesTheProofAlgorithms() async throws {
        try await ServerHarness.run { harness in
            let metadata = try await harness.client.send("GET", "/.well-known/openid-configuration").json
            #expect(metadata["dpop_signing_alg_values_supported"] == .array([.string("ES256"), .string("EdDSA")]))
        }
    }

    /// A thief holding a bound access token but not its key is refused at every route that takes it, and the
    /// refusals are on the user's record: on the session's stream, by exact reason, a flood of them two events.
    @Test func aThiefsUseOfABoundAccessTokenIsRecordedOnItsSessionWithoutAmplification() async throws {
        try await ServerHarness.run { harness in
            let device = try Device(harness)
            let thief = try Device(harness)
            let signin = try await device.signIn()
            let access = try #require(signin.string("access_token"))
            let elsewhere = [("User-Agent", "curl/8.5"), ("X-Forwarded-For", "198.51.100.9")]
            let sessions = device.url("/v1/me/sessions")
            for _ in 0..<40 {
                let proof = try thief.maker.proof(method: "GET", url: sessions, accessToken: access)
                let answer = try await harness.client.send(
                    "GET",
                    "/v1/me/sessions",
                    headers: elsewhere + [("Authorization", "DPoP \(access)"), ("DPoP", proof)]
                )
                Self.expectRefusal(answer, "dpop_wrong_key")
            }
            for _ in 0..<10 {
                let answer = try await harness.client.send(
                    "POST",
                    "/v1/logout",
                    headers: elsewhere + [("Authorization", "Bearer \(access)")]
                )
                Self.expectRefusal(answer, "dpop_missing")
            }
            try await harness.flushRefusals()
            let refused = try await harness.events(ofType: "token.access_refused")
            #expect(refused.count == 2, "the window's first, then one summary")
            let first = try #require(refused.first)
            let sessionID = try #require(try await harness.events(ofType: "token.issued").first?.sessionID)
            #expect(first.stream == "session-\(sessionID.lowercased)" && first.sessionID == sessionID)
            #expect(first.userID != nil && first.reason == "dpop_wrong_key" && first.outcome == "failure")
            #expect(first.ip == "198.51.100.9" && first.userAgent == "curl/8.5")
            #expect(first.data["route"]?.stringValue == "GET /v1/me/sessions")
            #expect(first.data["token_kind"]?.stringValue == "access_token")
            #expect(first.data["token_id"]?.stringValue == (try Self.claims(of: access))["jti"]?.stringValue)
            #expect(first.data["counts"] == .object([("dpop_wrong_key", .number("1"))]))
            let summary = refused[1]
            #expect(summary.reason == "dpop_wrong_key")
            #expect(summary.data["counts"]?["dpop_wrong_key"]?.integerValue == 39)
            #expect(summary.data["counts"]?["dpop_missing"]?.integerValue == 10)
            // Nothing ended: the user's device goes on, and sees the refusals in its own activity.
            #expect(try await harness.count("SELECT count(*) FROM authlog.sessions WHERE state = 'active'") == 1)
            let types = try await device.activity(with: access).compactMap { $0["type"]?.stringValue }
            #expect(types.filter { $0 == "token.access_refused" }.count == 2, "\(types)")
        }
    }

    /// The same promise under the default configuration (rate limits on, their one-minute window): a stolen
    /// access token sent in a loop without its key is two events on the session, counting every refusal.
    @Test func aFloodOfAStolenAccessTokenIsTwoEventsUnderTheDefaults() async throws {
        try await ServerHarness.run(adjust: ServerHarness.defaultLimits) { harness in
            let device = try Device(harness)
            let thief = try Device(harness)
            let access = try #require(try await device.signIn().string("access_token"))
            let sessions = device.url("/v1/me/sessions")
            for _ in 0..<40 {
                let answer = try await harness.client.send(
                    "GET",
                    "/v1/me/sessions",
                    headers: [("X-Forwarded-For", "198.51.100.9"), ("Authorization", "DPoP \(access)")] + [
                        ("DPoP", try thief.maker.proof(method: "GET", url: sessions, accessToken: access))
                    ]
                )
                Self.expectRefusal(answer, "dpop_wrong_key")
            }
            try await harness.flushRefusals()
            let refused = try await harness.events(ofType: "token.access_refused")
            #expect(refused.count == 2, "the window's first, then one summary")
            let counted = refused.compactMap { $0.data["counts"]?["dpop_wrong_key"]?.integerValue }.reduce(0, +)
            #expect(counted == 40, "every refusal accounted for")
            #expect(refused.allSatisfy { $0.ip == "198.51.100.9" })
        }
    }

    static func section(nonces: Bool = false, required client: String? = nil) -> ServerConfiguration.DPoPSection {
        var section = ServerConfiguration.DPoPSection()
        section.nonces = nonces
        if let client { section.clients = [.init(clientID: client, policy: "required")] }
        return section
    }

    /// Revocation needs no proof, but a proof of another key revokes no bound token, refresh or access.
    @Test func aBoundTokenIsNotRevokedWithAnotherKeysProof() async throws {
        try await ServerHarness.run { harness in
            let device = try Device(harness)
            let thief = try Device(harness)
            let signin = try await device.signIn()
            for name in ["access_token", "refresh_token"] {
                let token = try #require(signin.string(name))
                let answer = try await harness.oauth(
                    "/oauth/revoke",
                    "token=\(token)",
                    headers: [("DPoP", try thief.proof("/oauth/revoke"))]
                )
                Self.expectRefusal(answer, "dpop_wrong_key")
            }
            // A proof that fails on its own names no token: counted by address.
            let misdirected = try await harness.oauth(
                "/oauth/revoke",
                "token=\(try #require(signin.string("refresh_token")))",
                headers: [("DPoP", try thief.proof("/oauth/introspect"))]
            )
            Self.expectRefusal(misdirected, "dpop_htu_mismatch")
            #expect(try await harness.events(ofType: "token.revoked").isEmpty)
            try await harness.flushRefusals()
            let refused = try await harness.events(ofType: "token.access_refused")
            #expect(refused.map(\.reason) == ["dpop_wrong_key", "dpop_wrong_key"], "the first, then the summary")
            #expect(refused.first?.data["token_kind"]?.stringValue == "access_token")
            #expect(refused.first?.data["route"]?.stringValue == "POST /oauth/revoke")
            let unnamed = try #require(try await harness.events(ofType: "request.refused").first)
            #expect(unnamed.data["counts"] == .object([("dpop_htu_mismatch", .number("1"))]))
            #expect(try await device.refresh(try #require(signin.string("refresh_token"))).status == 200)
        }
    }
}
