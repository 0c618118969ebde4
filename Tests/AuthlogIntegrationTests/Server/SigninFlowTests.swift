import AuthlogCore
import AuthlogServer
import AuthlogTesting
import Foundation
import Testing

/// For every provider: sign in, refresh, log out — the HTTP answers and the events stored.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct SigninFlowTests {
    @Test(arguments: ["apple", "google", "gitlab", "kakao", "github", "firebase", "dev"])
    func signInRefreshLogout(provider: String) async throws {
        try await ServerHarness.run { harness in
            let proofs = ProofMaker(providers: harness.providers)
            let signin = try await harness.post("/v1/signin/\(provider)", try proofs.validBody(for: provider))
            #expect(signin.status == 200, "\(String(decoding: signin.body, as: UTF8.self))")
            #expect(signin.json["is_new_user"]?.boolValue == true)
            #expect(signin.string("token_type") == "Bearer")
            #expect(signin.header("X-Request-Id") != nil)
            let userID = try #require(signin.string("user_id").flatMap(UUID.init(uuidString:)))
            let sessionID = try #require(signin.string("session_id").flatMap(UUID.init(uuidString:)))
            let refreshToken = try #require(signin.string("refresh_token"))
            #expect(refreshToken.hasPrefix("alr_"))

            let refreshed = try await harness.post(
                "/v1/token/refresh",
                .members(["refresh_token": .string(refreshToken)])
            )
            #expect(refreshed.status == 200)
            #expect(refreshed.string("session_id") == signin.string("session_id"))
            #expect(refreshed.string("refresh_token") != refreshToken)
            let accessToken = try #require(refreshed.string("access_token"))

            let logout = try await harness.post(
                "/v1/logout",
                .members(["scope": .string("this")]),
                headers: ServerHarness.appHeaders + [("Authorization", "Bearer \(accessToken)")]
            )
            #expect(logout.status == 204)

            let events = try await harness.events()
            #expect(
                events.map(\.type) == [
                    "user.registered", "signin.succeeded", "token.issued", "token.refreshed", "session.logged_out",
                ]
            )
            for event in events {
                #expect(event.provider == provider, "\(event.type)")
                #expect(event.userID == userID, "\(event.type)")
                #expect(event.ip == "203.0.113.7", "\(event.type): the client address through the trusted proxy")
                #expect(event.userAgent == "ExampleApp/1.0 (iPhone)", "\(event.type)")
                #expect(event.outcome == "success", "\(event.type)")
                #expect(event.requestID != nil, "\(event.type)")
            }
            for event in events.dropFirst() { #expect(event.sessionID == sessionID, "\(event.type)") }
            #expect(events[0].stream == "user-\(userID.lowercased)")
            #expect(events[1].stream == "session-\(sessionID.lowercased)")
            if provider == "firebase" { #expect(events[1].data["upstream_provider"]?.stringValue == "github.com") }
            // No token, code or nonce is stored in clear.
            let stored = events.map(\.data.canonicalText).joined()
            #expect(!stored.contains(refreshToken) && !stored.contains(accessToken))
        }
    }

    @Test func concurrentFirstSignInsOfOneIdentityRegisterOneUser() async throws {
        try await ServerHarness.run { harness in
            let answers = try await withThrowingTaskGroup(of: HTTPTestClient.Answer.self) { group in
                for _ in 0..<12 {
                    group.addTask { try await harness.post("/v1/signin/dev", .members(["subject": .string("carol")])) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(answers.allSatisfy { $0.status == 200 })
            #expect(Set(answers.compactMap { $0.string("user_id") }).count == 1)
            #expect(answers.filter { $0.json["is_new_user"]?.boolValue == true }.count == 1)
            #expect(try await harness.count("SELECT count(*) FROM authlog.events WHERE type = 'user.registered'") == 1)
        }
    }

    @Test func forwardedForFromAnUntrustedPeerIsIgnored() async throws {
        let adjust: (inout ServerConfiguration) -> Void = { $0.trustedProxies = [] }
        try await ServerHarness.run(adjust: adjust) { harness in
            let answer = try await harness.post("/v1/signin/dev", .members(["subject": .string("dave")]))
            #expect(answer.status == 200)
            #expect(try await harness.events().allSatisfy { $0.ip == "127.0.0.1" })
        }
    }

    @Test func devProviderIsOffUnlessEnabled() async throws {
        let adjust: (inout ServerConfiguration) -> Void = { $0.development = false }
        try await ServerHarness.run(adjust: adjust) { harness in
            let answer = try await harness.post("/v1/signin/dev", .members(["subject": .string("eve")]))
            #expect(answer.status == 404)
            #expect(answer.string("error") == "unknown_provider")
            #expect(try await harness.events().map(\.reason) == ["unknown_provider"])
        }
    }
}
