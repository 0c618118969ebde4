import AuthlogCore
import AuthlogPostgres
import AuthlogTesting
import Foundation
import Testing

extension Servers {
    /// docs/signin.md's promise under the default configuration, against a real `authlog serve`: eight
    /// concurrent first sign-ins of one new identity register one user and answer 200 to all eight with its
    /// `user_id`; the identity's own email, stored by the sign-in that registered it, is never taken for another
    /// user's. Another identity with the same email still gets `409 account_exists`.
    @Suite(.enabled(if: TestDatabase.isAvailable))
    struct ConcurrentFirstSigninPromiseTests {
        /// Rounds of the race: the refusal it guards against showed in some rounds only.
        static let rounds = 20

        @Test func eightConcurrentFirstSigninsOfOneIdentityRegisterOneUserAndAllSucceed() async throws {
            try await ClientTestServer.run { server in
                let database = try await server.database.connect()
                for round in 0..<Self.rounds {
                    // Each round is one new person's device, on an address of its own.
                    try await Self.race(round: round, server: server, from: "127.0.0.\(10 + round)", database: database)
                }
                #expect(
                    try await server.database.scalar(
                        "SELECT count(*) FROM authlog.event_records WHERE type = 'user.registered'"
                    ) == Int64(Self.rounds)
                )
                #expect(
                    try await server.database.scalar(
                        "SELECT count(*) FROM authlog.event_records WHERE type = 'signin.failed'"
                    ) == Int64(Self.rounds),
                    "only the other identities' sign-ins failed"
                )
            }
        }

        /// A Google ID token for `subject` with a verified `email` (not Gmail: Google is not authoritative for
        /// it) and its own nonce, as the body of a sign-in.
        static func proof(subject: String, email: String, server: ClientTestServer) throws -> JSONValue {
            let nonce = UUID().uuidString
            let token = try server.fake.sign(
                FakeIdentityProvider.claims(
                    issuer: "https://accounts.google.com",
                    audience: .string(ClientTestServer.googleClient),
                    subject: subject,
                    nonce: nonce,
                    extra: [("email", .string(email)), ("email_verified", .bool(true))]
                )
            )
            return .members(["id_token": .string(token), "raw_nonce": .string(nonce)])
        }

        /// Eight sign-ins of one new Google identity at once, then one of another identity with the same email.
        static func race(
            round: Int,
            server: ClientTestServer,
            from source: String,
            database: Connection
        ) async throws {
            let port = try #require(server.baseURL.port)
            let subject = "race-\(round)-\(UUID().uuidString.prefix(8))"
            let email = "person-\(round)@example.org"
            let requests = try (0..<8).map { _ in
                SimultaneousRequests.post(
                    "/v1/signin/google",
                    try Self.proof(subject: subject, email: email, server: server)
                )
            }
            let answers = try await SimultaneousRequests.send(requests, port: port, from: source)
            #expect(answers.map(\.status) == Array(repeating: 200, count: 8), "round \(round): \(answers.map(\.json))")
            let users = Set(answers.map { $0.string("user_id") ?? "-" })
            #expect(users.count == 1, "round \(round): one user for all eight")
            let user = try #require(answers.first { $0.status == 200 }?.string("user_id"))
            #expect(Set(answers.map { $0.string("session_id") ?? "-" }).count == 8, "round \(round): a session each")
            #expect(answers.filter { $0.json?["is_new_user"] == .bool(true) }.count == 1, "round \(round)")

            // What the server recorded for each request: the sign-in and its tokens, and the registration for
            // exactly one of them; each answer names its own events.
            var registrations = 0
            for answer in answers {
                let events = try await SimultaneousRequests.events(of: answer, in: database)
                let types = events.map(\.type).filter { $0 != "user.registered" }.sorted()
                #expect(types == ["signin.succeeded", "token.issued"], "round \(round): \(events.map(\.type))")
                #expect(Set(SimultaneousRequests.eventIDs(of: answer)) == Set(events.map(\.id)))
                let registered = events.filter { $0.type == "user.registered" }.count
                #expect(registered == (answer.json?["is_new_user"] == .bool(true) ? 1 : 0), "round \(round)")
                registrations += registered
            }
            #expect(registrations == 1, "round \(round)")
            #expect(
                try await database.query(
                    """
                    SELECT count(*) FROM authlog.event_records WHERE type = 'user.registered' AND user_id = \(user)::uuid
                    """
                ).first?.decode(Int64.self, at: 0) == 1
            )
            #expect(
                try await database.query(
                    "SELECT count(*) FROM authlog.sessions WHERE user_id = \(user)::uuid AND state = 'active'"
                ).first?.decode(Int64.self, at: 0) == 8
            )

            // Another Google identity with the same address is refused as docs/signin.md says, and recorded so.
            let other = try #require(
                try await SimultaneousRequests.send(
                    [
                        SimultaneousRequests.post(
                            "/v1/signin/google",
                            try Self.proof(subject: subject + "-other", email: email, server: server)
                        )
                    ],
                    port: port,
                    from: source
                ).first
            )
            #expect(other.status == 409 && other.string("error") == "account_exists", "round \(round)")
            #expect(other.json?["providers"] == .array([.string("google")]))
            let refusal = try await SimultaneousRequests.events(of: other, in: database)
            #expect(refusal.map(\.type) == ["signin.failed"])
            #expect(
                try await database.query(
                    """
                    SELECT reason FROM authlog.event_records WHERE request_id = \(other.header("X-Request-Id") ?? "-")
                    """
                ).first?.decode(String.self, at: 0) == "account_exists"
            )
        }
    }
}
