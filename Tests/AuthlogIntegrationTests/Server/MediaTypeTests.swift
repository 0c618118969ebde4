import AuthlogCore
import AuthlogTesting
import Foundation
import Testing

/// A 415 names the media type the route takes, and a refresh refused for its body is recorded.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct MediaTypeTests {
    @Test func introspectionSaysItTakesAFormBody() async throws {
        try await ServerHarness.run { harness in
            let credentials = Data("\(Fixture.introspectionClient.id):\(Fixture.introspectionClient.secret)".utf8)
                .base64EncodedString()
            let answer = try await harness.client.send(
                "POST",
                "/oauth/introspect",
                json: .members(["token": "x"]),
                headers: [("Authorization", "Basic \(credentials)")]
            )
            #expect(answer.status == 415)
            #expect(answer.string("error") == "unsupported_media_type")
            #expect(answer.string("error_description") == "Send the body as application/x-www-form-urlencoded.")
            let signin = try await harness.client.send(
                "POST",
                "/v1/signin/dev",
                body: Array("subject=x".utf8),
                headers: [("Content-Type", "application/x-www-form-urlencoded")]
            )
            #expect(signin.status == 415)
            #expect(signin.string("error_description") == "Send the body as application/json.")
        }
    }

    @Test func aRefreshRefusedForItsBodyIsRecorded() async throws {
        try await ServerHarness.run { harness in
            let missing = try await harness.post("/v1/token/refresh", .members(["token": "x"]))
            #expect(missing.status == 400)
            let notJSON = try await harness.client.send(
                "POST",
                "/v1/token/refresh",
                body: Array("{".utf8),
                headers: [("Content-Type", "application/json")]
            )
            #expect(notJSON.status == 400)
            let failures = try await harness.events().filter { $0.type == "token.refresh_failed" }
            #expect(failures.map(\.reason) == ["malformed_request", "malformed_request"])
            #expect(failures.allSatisfy { $0.stream == "signin-unknown" && $0.requestID != nil })
        }
    }
}
