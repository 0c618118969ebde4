import AuthlogCore
import AuthlogPostgres
import AuthlogTesting
import Foundation
import Testing

extension Faults {
    /// Two `authlog serve` processes on one database, each signing in with the same GitLab (a fake issuer on
    /// 127.0.0.1), taking expired proofs of the same identities at once: each identity is locked exactly
    /// once, and both processes then refuse its valid proofs.
    @Suite(.enabled(if: TestDatabase.isAvailable), .serialized)
    struct LockoutMultiProcessTests {
        @Test(.timeLimit(.minutes(3)))
        func twoServersRacingFailedProofsLockEachIdentityOnce() async throws {
            let database = try await TestDatabase.make()
            let fake = try await FakeIdentityProvider.start()
            defer { Task { await fake.stop() } }
            let configuration = JSONValue.object([
                (
                    "providers",
                    .object([
                        (
                            "gitlab",
                            .object([
                                ("issuer", .string(fake.baseURL)), ("client_ids", .array([.string("app")])),
                            ])
                        )
                    ])
                ),
                ("rate_limits", .object([("lockout", .object([("failures", .number("5"))]))])),
            ])
            let servers = [
                try await ServeProcess.start(database: database, configuration: configuration),
                try await ServeProcess.start(database: database, configuration: configuration),
            ]
            defer { for server in servers { server.stop() } }
            let clients = servers.map { HTTPTestClient(baseURL: $0.baseURL) }
            let subjects = (0..<3).map { "victim-\($0)" }
            let now = Int64(Date().timeIntervalSince1970)
            var attempts: [(client: HTTPTestClient, token: String)] = []
            for subject in subjects {
                for index in 0..<16 {
                    let claims = FakeIdentityProvider.claims(
                        issuer: fake.baseURL,
                        audience: .string("app"),
                        subject: subject,
                        issuedAt: now - 700,
                        lifetime: 600
                    )
                    attempts.append((clients[index % 2], try fake.sign(claims)))
                }
            }
            let codes = try await withThrowingTaskGroup(of: String?.self) { group in
                for attempt in attempts {
                    group.addTask {
                        let answer = try await attempt.client.post(
                            "/v1/signin/gitlab",
                            .object([("id_token", .string(attempt.token))])
                        )
                        return answer.json["error"]?.stringValue
                    }
                }
                return try await group.reduce(into: [String?]()) { $0.append($1) }
            }
            #expect(codes.count == 48 && codes.allSatisfy { $0 == "expired" }, "\(Set(codes))")
            let connection = try await Connection.connect(database.conninfo)
            func count(_ query: SQLQuery) async throws -> Int64 {
                try await connection.query(query).first?.decode(Int64.self, at: 0) ?? -1
            }
            #expect(try await count("SELECT count(*) FROM authlog.event_records WHERE type = 'signin.failed'") == 48)
            #expect(try await count("SELECT count(*) FROM authlog.event_records WHERE type = 'identity.locked'") == 3)
            #expect(
                try await count(
                    "SELECT count(DISTINCT stream) FROM authlog.event_records WHERE type = 'identity.locked'"
                ) == 3
            )
            for subject in subjects {
                let valid = try fake.sign(
                    FakeIdentityProvider.claims(issuer: fake.baseURL, audience: .string("app"), subject: subject)
                )
                for client in clients {
                    let answer = try await client.post("/v1/signin/gitlab", .object([("id_token", .string(valid))]))
                    #expect(answer.status == 401 && answer.json["error"] == .string("invalid_signature"))
                }
            }
            #expect(try await count("SELECT count(*) FROM authlog.event_records WHERE reason = 'identity_locked'") == 6)
        }
    }
}
