import AuthlogCore
import AuthlogServer
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

/// A signed-in session, as the app holds it.
struct SignedIn {
    let userID: UUID
    let sessionID: UUID
    let accessToken: String
    let refreshToken: String
    let isNewUser: Bool

    init(_ answer: HTTPTestClient.Answer) throws {
        #expect(
            answer.status == 200,
            "sign-in answered \(answer.status): \(String(decoding: answer.body, as: UTF8.self))"
        )
        self.userID = try #require(answer.string("user_id").flatMap(UUID.init(uuidString:)))
        self.sessionID = try #require(answer.string("session_id").flatMap(UUID.init(uuidString:)))
        self.accessToken = try #require(answer.string("access_token"))
        self.refreshToken = try #require(answer.string("refresh_token"))
        self.isNewUser = answer.json["is_new_user"] == .bool(true)
    }
}

extension ServerHarness {
    /// Signs in with Apple: an identity token for `subject` with `email`, and with `code` an authorization
    /// code whose exchange stores Apple's refresh token.
    func signInWithApple(
        subject: String = "001234.apple-user",
        email: String = "a@privaterelay.appleid.com",
        code: String? = nil
    ) async throws -> SignedIn {
        try await self.post("/v1/signin/apple", try self.appleProof(subject: subject, email: email, code: code))
            .signedIn()
    }

    /// An Apple proof body (identity token and raw nonce, optionally a code).
    func appleProof(
        subject: String,
        email: String = "a@privaterelay.appleid.com",
        code: String? = nil
    ) throws
        -> JSONValue
    {
        let raw = ProofMaker.rawNonce()
        let token = try ProofMaker(providers: self.providers).appleIDToken(
            subject: subject,
            rawNonce: raw,
            extra: [("email", .string(email)), ("email_verified", .string("true"))]
        )
        var members: [(name: String, value: JSONValue)] = [("id_token", .string(token)), ("raw_nonce", .string(raw))]
        if let code {
            self.providers.apple.registerCode(
                code,
                idTokenClaims: FakeIdentityProvider.claims(
                    issuer: Fixture.appleIssuer,
                    audience: .string(Fixture.appleClient),
                    subject: subject
                )
            )
            members.append(("authorization_code", .string(code)))
        }
        return .object(members)
    }

    /// A re-authentication body: an Apple proof for `subject` with `"provider": "apple"`.
    func appleReauthentication(subject: String) throws -> JSONValue {
        guard case .object(let members) = try self.appleProof(subject: subject) else { return .null }
        return .object(members + [("provider", "apple")])
    }

    /// A GitHub proof body: a code whose exchange gives an access token of GitHub user `id` with `email`.
    func githubProof(id: Int64 = 583231, email: String = "octo@example.com") -> JSONValue {
        let code = "gh-code-\(UUID().uuidString)"
        self.providers.github.registerCode(code, idTokenClaims: [])
        self.providers.github.registerAccessToken(
            "gho_\(code)",
            for: .init(id: id, appID: Fixture.githubClient, email: email)
        )
        return .members([
            "authorization_code": .string(code), "code_verifier": .string(String(repeating: "g", count: 43)),
        ])
    }

    /// A Google proof body for `subject` with `email` (verified), in the Workspace domain `hd` when given.
    func googleProof(
        subject: String = "1098765432",
        email: String = "g@gmail.com",
        hd: String? = nil
    ) throws
        -> JSONValue
    {
        let raw = ProofMaker.rawNonce()
        let token = try ProofMaker(providers: self.providers).googleIDToken(subject: subject, nonce: raw) { claims in
            claims.removeAll { $0.name == "email" }
            claims.append(("email", .string(email)))
            if let hd { claims.append(("hd", .string(hd))) }
        }
        return .members(["id_token": .string(token), "raw_nonce": .string(raw)])
    }

    /// Signs in through the development provider.
    func signInDev(_ subject: String = "alice") async throws -> SignedIn {
        try await self.post("/v1/signin/dev", .members(["subject": .string(subject)])).signedIn()
    }

    /// A request with the session's bearer token.
    func send(
        _ method: String,
        _ path: String,
        _ json: JSONValue? = nil,
        as session: SignedIn
    ) async throws -> HTTPTestClient.Answer {
        try await self.client.send(
            method,
            path,
            json: json,
            headers: ServerHarness.appHeaders + [("Authorization", "Bearer \(session.accessToken)")]
        )
    }

    /// Moves the session's last authentication an hour back, as if the user signed in long ago.
    func ageAuthentication(of session: SignedIn) async throws {
        try await self.database.connect().query(
            """
            UPDATE authlog.sessions SET authenticated_at = authenticated_at - interval '1 hour'
            WHERE session_id = \(session.sessionID)
            """
        )
    }

    /// The stored events of `type`.
    func events(ofType type: String) async throws -> [StoredEvent] {
        try await self.events().filter { $0.type == type }
    }

    /// A refresh with `token`.
    func refresh(_ token: String) async throws -> HTTPTestClient.Answer {
        try await self.post("/v1/token/refresh", .members(["refresh_token": .string(token)]))
    }

    /// RFC 7662 introspection of `token` by the configured resource server.
    func introspect(_ token: String) async throws -> JSONValue {
        try await self.oauth("/oauth/introspect", "token=\(token)").json
    }

    /// A form POST to an OAuth endpoint with the resource server's client credentials (and `headers`).
    func oauth(
        _ path: String,
        _ form: String,
        headers: [(String, String)] = []
    ) async throws
        -> HTTPTestClient.Answer
    {
        let credentials = Data("\(Fixture.introspectionClient.id):\(Fixture.introspectionClient.secret)".utf8)
            .base64EncodedString()
        return try await self.client.send(
            "POST",
            path,
            body: Array(form.utf8),
            headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Authorization", "Basic \(credentials)")]
                + headers
        )
    }

    /// Whether `authlog verify`'s check passes.
    func chainIsIntact() async throws -> Bool {
        try await self.components.store.sealPending()
        if case .intact = try await LogVerifier().verify(on: try await self.database.connect()) { return true }
        return false
    }
}

extension HTTPTestClient.Answer {
    /// The session of a successful sign-in answer.
    func signedIn() throws -> SignedIn { try SignedIn(self) }
}
