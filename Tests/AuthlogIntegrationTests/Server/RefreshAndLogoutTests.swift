import AuthlogCore
import AuthlogServer
import AuthlogTesting
import Foundation
import Testing

/// Exactly-once rotation, reuse detection, logout and introspection.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct RefreshAndLogoutTests {
    static func signIn(_ harness: ServerHarness, subject: String = "alice") async throws -> HTTPTestClient.Answer {
        let answer = try await harness.post("/v1/signin/dev", .members(["subject": .string(subject)]))
        #expect(answer.status == 200)
        return answer
    }

    static func refresh(_ harness: ServerHarness, _ token: String) async throws -> HTTPTestClient.Answer {
        try await harness.post("/v1/token/refresh", .members(["refresh_token": .string(token)]))
    }

    static func introspect(_ harness: ServerHarness, _ token: String) async throws -> JSONValue {
        let credentials = Data("\(Fixture.introspectionClient.id):\(Fixture.introspectionClient.secret)".utf8)
            .base64EncodedString()
        let answer = try await harness.client.send(
            "POST",
            "/oauth/introspect",
            body: Array("token=\(token)".utf8),
            headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Authorization", "Basic \(credentials)")]
        )
        #expect(answer.status == 200)
        return answer.json
    }

    @Test func fiftyConcurrentRefreshesWithOneTokenGiveOneSuccessAndARevokedFamily() async throws {
        try await ServerHarness.run(adjust: withoutRefreshGrace) { harness in
            let signin = try await Self.signIn(harness)
            let token = try #require(signin.string("refresh_token"))
            let answers = try await withThrowingTaskGroup(of: HTTPTestClient.Answer.self) { group in
                for _ in 0..<50 { group.addTask { try await Self.refresh(harness, token) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let winners = answers.filter { $0.status == 200 }
            #expect(winners.count == 1)
            #expect(answers.filter { $0.status == 401 }.allSatisfy { $0.string("error") == "invalid_grant" })
            #expect(answers.filter { $0.status == 401 }.count == 49)
            // The family is revoked: even the winner's new token is dead, and the session is over.
            let winnerToken = try #require(winners.first?.string("refresh_token"))
            #expect(try await Self.refresh(harness, winnerToken).status == 401)
            #expect(
                try await harness.count(
                    "SELECT count(*) FROM authlog.refresh_tokens WHERE state <> 'revoked'"
                ) == 0
            )
            #expect(try await harness.count("SELECT count(*) FROM authlog.sessions WHERE state = 'revoked'") == 1)
            let types = try await harness.events().map(\.type)
            #expect(types.filter { $0 == "token.refreshed" }.count == 1)
            #expect(types.filter { $0 == "token.reuse_detected" }.count == 1)
            #expect(
                try await Self.introspect(harness, try #require(winners.first?.string("access_token")))
                    == .members(["active": .bool(false)])
            )
        }
    }

    @Test func introspectionNeedsClientCredentials() async throws {
        try await ServerHarness.run { harness in
            let answer = try await harness.client.send(
                "POST",
                "/oauth/introspect",
                body: Array("token=x".utf8),
                headers: [
                    ("Content-Type", "application/x-www-form-urlencoded"),
                    ("Authorization", "Basic \(Data("resource-server:wrong".utf8).base64EncodedString())"),
                ]
            )
            #expect(answer.status == 401)
            #expect(answer.string("error") == "invalid_client")
        }
    }
}
