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
        try await ServerHarness.run { harness in
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

    @Test func rotatedTokenReusedLaterRevokesTheFamily() async throws {
        try await ServerHarness.run { harness in
            let first = try #require(try await Self.signIn(harness).string("refresh_token"))
            let second = try await Self.refresh(harness, first)
            #expect(second.status == 200)
            let third = try await Self.refresh(harness, try #require(second.string("refresh_token")))
            #expect(third.status == 200)
            let newest = try #require(third.string("refresh_token"))
            #expect(try await Self.introspect(harness, newest)["active"]?.boolValue == true)
            // The first token, rotated long ago, comes back: an attacker's copy.
            let reuse = try await Self.refresh(harness, first)
            #expect(reuse.status == 401)
            #expect(reuse.string("error") == "invalid_grant")
            #expect(try await Self.refresh(harness, newest).status == 401)
            let events = try await harness.events()
            #expect(events.map(\.type).suffix(2) == ["token.reuse_detected", "token.refresh_failed"])
            #expect(events.last?.reason == "revoked")
            #expect(events.dropLast().last?.outcome == "failure")
        }
    }

    @Test func unknownRefreshTokenIsRecorded() async throws {
        try await ServerHarness.run { harness in
            let answer = try await Self.refresh(harness, "alr_not-a-token-we-made")
            #expect(answer.status == 401)
            let events = try await harness.events()
            #expect(events.map(\.type) == ["token.refresh_failed"])
            #expect(events.first?.reason == "unknown_token")
            #expect(events.first?.stream == "signin-unknown")
            #expect(!(events.first?.data.canonicalText.contains("not-a-token") ?? true))
        }
    }

    @Test func expiredRefreshTokenIsRefusedAndRecorded() async throws {
        let oneSecond = try JSONValue.members(["remember_me_ttl_seconds": .number("1")])
            .decode(ServerConfiguration.RefreshTokenSettings.self)
        let adjust: (inout ServerConfiguration) -> Void = { $0.refreshToken = oneSecond }
        try await ServerHarness.run(adjust: adjust) { harness in
            let token = try #require(try await Self.signIn(harness).string("refresh_token"))
            try await Task.sleep(for: .milliseconds(1100))
            let answer = try await Self.refresh(harness, token)
            #expect(answer.status == 401)
            #expect(answer.string("error") == "invalid_grant")
            // The token's lifetime is the session's absolute one: the refresh records the refused attempt and
            // the session's expiry, in that order, on the session stream.
            let events = try await harness.events().suffix(2)
            #expect(events.map(\.type) == ["token.refresh_failed", "session.expired"])
            #expect(events.map(\.reason) == ["session_expired", "absolute"])
            #expect(events.allSatisfy { $0.stream.hasPrefix("session-") })
        }
    }

    @Test func accessTokenPresentedAsRefreshTokenIsRefused() async throws {
        try await ServerHarness.run { harness in
            let signin = try await Self.signIn(harness)
            let answer = try await Self.refresh(harness, try #require(signin.string("access_token")))
            #expect(answer.status == 401)
            #expect(try await harness.events().last?.reason == "unknown_token")
            // And the reverse: a refresh token is no bearer token.
            let logout = try await harness.post(
                "/v1/logout",
                .emptyObject,
                headers: [("Authorization", "Bearer \(try #require(signin.string("refresh_token")))")]
            )
            #expect(logout.status == 401)
            #expect(logout.string("error") == "invalid_token")
        }
    }

    @Test func logoutThisEndsOnlyThatSessionAndKillsItsTokensAtOnce() async throws {
        try await ServerHarness.run { harness in
            let phone = try await Self.signIn(harness)
            let laptop = try await Self.signIn(harness)
            let phoneAccess = try #require(phone.string("access_token"))
            #expect(try await Self.introspect(harness, phoneAccess)["active"]?.boolValue == true)
            let logout = try await harness.post(
                "/v1/logout",
                .members(["scope": "this"]),
                headers: [("Authorization", "Bearer \(phoneAccess)")]
            )
            #expect(logout.status == 204)
            #expect(try await Self.introspect(harness, phoneAccess) == .members(["active": .bool(false)]))
            #expect(
                try await Self.introspect(harness, try #require(phone.string("refresh_token")))
                    == .members(["active": .bool(false)])
            )
            #expect(try await Self.refresh(harness, try #require(phone.string("refresh_token"))).status == 401)
            // The other session lives on.
            #expect(
                try await Self.introspect(harness, try #require(laptop.string("access_token")))["active"]?.boolValue
                    == true
            )
            #expect(try await Self.refresh(harness, try #require(laptop.string("refresh_token"))).status == 200)
            // A second logout with the same access token is refused: the session has ended.
            let again = try await harness.post(
                "/v1/logout",
                .emptyObject,
                headers: [("Authorization", "Bearer \(phoneAccess)")]
            )
            #expect(again.status == 401)
        }
    }

    @Test func logoutAllEndsEverySessionOfTheUser() async throws {
        try await ServerHarness.run { harness in
            let phone = try await Self.signIn(harness)
            let laptop = try await Self.signIn(harness)
            let other = try await Self.signIn(harness, subject: "bob")
            let logout = try await harness.post(
                "/v1/logout",
                .members(["scope": "all"]),
                headers: [("Authorization", "Bearer \(try #require(phone.string("access_token")))")]
            )
            #expect(logout.status == 204)
            #expect(try await Self.refresh(harness, try #require(laptop.string("refresh_token"))).status == 401)
            #expect(
                try await Self.introspect(harness, try #require(laptop.string("access_token")))
                    == .members(["active": .bool(false)])
            )
            #expect(try await Self.refresh(harness, try #require(other.string("refresh_token"))).status == 200)
            let loggedOut = try await harness.events().filter { $0.type == "session.logged_out" }
            #expect(loggedOut.count == 1)
            #expect(loggedOut.first?.data["scope"]?.stringValue == "all")
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
