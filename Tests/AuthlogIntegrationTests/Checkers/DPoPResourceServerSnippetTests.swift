import AuthlogCore
import AuthlogCrypto
import AuthlogTesting
import Foundation
import Testing

extension Checkers {
    /// The resource server's check of docs/signin.md ("Checking a DPoP-bound access token in your resource
    /// server"), run as written with joserfc, accepts what authlog itself accepts — an access token bound at a real
    /// sign-in with its proof, for ES256 and EdDSA keys — and refuses each forgery by its own reason: another key's
    /// proof, a proof hashing another token, a proof for another URL, a stale proof, the token as `Bearer`, a token
    /// signed by another key, an expired token.
    @Suite(.enabled(if: TestDatabase.isAvailable && PythonModules.areAvailable(["joserfc"])))
    struct DPoPResourceServerSnippetTests {
        /// The ```python block of docs/signin.md that defines `check_dpop_request(`.
        static func snippet() throws -> String {
            let block = try RepositoryFiles.codeBlock(
                "python",
                in: "docs/signin.md",
                containing: "def check_dpop_request("
            )
            return try #require(block, "the snippet is in the docs")
        }

        /// The claims of a JWT, unchecked.
        static func claims(of jwt: String) throws -> JSONValue {
            let payload = try #require(jwt.split(separator: ".").dropFirst().first)
            return try JSONParser().parse(try #require(Base64URL.decode(String(payload))))
        }

        /// Signs in as `subject` through the dev provider with a proof of `device`'s key (`header` replacing the
        /// proof's header); the access token and the user id.
        static func signIn(
            _ harness: ServerHarness,
            _ subject: String,
            device: DPoPProofMaker,
            header: [(String, JSONValue)]? = nil
        ) async throws -> (accessToken: String, userID: String) {
            let proof = try device.proof(url: harness.client.baseURL + "/v1/signin/dev", header: header)
            let signin = try await harness.post(
                "/v1/signin/dev",
                .members(["subject": .string(subject)]),
                headers: ServerHarness.appHeaders + [("DPoP", proof)]
            )
            #expect(signin.status == 200, "\(signin.json)")
            #expect(signin.string("token_type") == "DPoP")
            return (try #require(signin.string("access_token")), try #require(signin.string("user_id")).lowercased())
        }

        @Test func theDocumentedCheckAcceptsBoundTokensAndRefusesForgeries() async throws {
            try await ServerHarness.run { harness in
                let device = try DPoPProofMaker()
                let thief = try DPoPProofMaker()
                let edDevice = try DPoPProofMaker(key: try PrivateKey.generate(for: .edDSA))
                let edHeader: [(String, JSONValue)] = [
                    ("typ", .string("dpop+jwt")), ("alg", .string("EdDSA")), ("jwk", try edDevice.jwk()),
                ]
                let (token, userID) = try await Self.signIn(harness, "alice", device: device)
                let (edToken, edUserID) = try await Self.signIn(harness, "bob", device: edDevice, header: edHeader)
                let jwks = try await harness.client.send("GET", "/.well-known/jwks.json").json
                let discovery = try await harness.client.send("GET", "/.well-known/openid-configuration").json
                let issuer = try #require(discovery["issuer"]?.stringValue)
                let claims = try Self.claims(of: token)
                let audience = try #require(claims["aud"]?.stringValue)
                let expiresAt = try #require(claims["exp"]?.integerValue)
                let sessions = harness.client.baseURL + "/v1/me/sessions"
                let good = try device.proof(method: "GET", url: sessions, accessToken: token)
                let edProof = try edDevice.proof(method: "GET", url: sessions, accessToken: edToken, header: edHeader)
                // authlog itself takes the pair the check is to accept.
                let answer = try await harness.client.send(
                    "GET",
                    "/v1/me/sessions",
                    headers: ServerHarness.appHeaders + [("Authorization", "DPoP \(token)"), ("DPoP", good)]
                )
                #expect(answer.status == 200, "\(answer.json)")
                // The same claims signed by a key that is not authlog's, and a proof that hashes that token.
                let parts = token.split(separator: ".").map(String.init)
                let signingInput = parts[0] + "." + parts[1]
                let otherKey = try PrivateKey.generate(for: .es256)
                let forged = signingInput + "." + Base64URL.encode(try otherKey.sign(Array(signingInput.utf8)))
                let afterExpiry = Timestamp(microsecondsSinceEpoch: (expiresAt + 1) * 1_000_000)
                func request(
                    _ proof: String,
                    token: String = token,
                    scheme: String = "DPoP",
                    url: String = sessions,
                    now: Int64? = nil
                ) -> JSONValue {
                    var members: [(name: String, value: JSONValue)] = [
                        ("method", .string("GET")), ("url", .string(url)),
                        ("authorization", .string("\(scheme) \(token)")), ("dpop", .string(proof)),
                    ]
                    if let now { members.append(("now", .number(String(now)))) }
                    return .object(members)
                }
                let cases: [(JSONValue, String)] = [
                    (request(good), "accepted \(userID)"),
                    // The query is no part of what a proof names.
                    (request(good, url: sessions + "?limit=5"), "accepted \(userID)"),
                    (request(edProof, token: edToken), "accepted \(edUserID)"),
                    (
                        request(try thief.proof(method: "GET", url: sessions, accessToken: token)),
                        "refused: the proof's key is not the one the access token is bound to"
                    ),
                    (
                        request(try device.proof(method: "GET", url: sessions, accessToken: token + "x")),
                        "refused: the proof's ath is not the hash of the access token"
                    ),
                    (
                        request(
                            try device.proof(
                                method: "GET",
                                url: harness.client.baseURL + "/v1/me/activity",
                                accessToken: token
                            )
                        ),
                        "refused: the proof's htu is not the request's URL"
                    ),
                    (
                        request(
                            try device.proof(
                                method: "GET",
                                url: sessions,
                                accessToken: token,
                                issuedAt: Timestamp.now().adding(seconds: -120)
                            )
                        ),
                        "refused: the proof's iat is more than 60 s old or 15 s ahead"
                    ),
                    (request(good, scheme: "Bearer"), "refused: the access token must come as Authorization: DPoP"),
                    (
                        request(try device.proof(method: "GET", url: sessions, accessToken: forged), token: forged),
                        "refused: the access token's signature does not verify"
                    ),
                    (
                        request(
                            try device.proof(method: "GET", url: sessions, accessToken: token, issuedAt: afterExpiry),
                            now: expiresAt + 1
                        ),
                        "refused: the access token has expired"
                    ),
                ]
                let driver = """
                    import json, sys
                    context = json.load(open(sys.argv[1]))
                    for case in context["cases"]:
                        try:
                            claims = check_dpop_request(
                                case["method"], case["url"], case["authorization"], case["dpop"],
                                context["jwks"], context["issuer"], context["audience"], now=case.get("now"),
                            )
                            print("accepted", claims["sub"])
                        except ValueError as refusal:
                            print("refused:", refusal)
                    """
                let context: JSONValue = .object([
                    ("jwks", jwks), ("issuer", .string(issuer)), ("audience", .string(audience)),
                    ("cases", .array(cases.map(\.0))),
                ])
                let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dpop-check-\(UUID())")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(at: folder) }
                let script = folder.appendingPathComponent("check.py")
                let inputFile = folder.appendingPathComponent("cases.json")
                try (try Self.snippet() + "\n\n" + driver).write(to: script, atomically: true, encoding: .utf8)
                try Data(context.canonicalBytes).write(to: inputFile)
                let output = try await ChildProcess.run("/usr/bin/env", ["python3", script.path, inputFile.path])
                #expect(output.status == 0, "\(output.stderr)")
                #expect(
                    output.stdout.split(separator: "\n").map(String.init) == cases.map(\.1),
                    "\(output.stdout) \(output.stderr)"
                )
            }
        }
    }
}
