import AuthlogCore
import AuthlogTesting
import Foundation
import Testing

/// Requests to the access-token routes that are refused before any rule ran, and refreshes that name no token
/// of authlog's, are attempts too: they are recorded, aggregated so that a client sending them in a loop does
/// not grow the log one event per request. The promises are held under the default configuration (rate limits
/// on, their one-minute window).
@Suite(.enabled(if: TestDatabase.isAvailable))
struct AccessTokenRefusalTests {
    @Test func forgedAndMissingAccessTokensAreCountedByAddress() async throws {
        try await ServerHarness.run(adjust: ServerHarness.defaultLimits) { harness in
            let session = try await harness.signInDev("mallory-target")
            let forged = try Self.withAlteredSignature(session.accessToken)
            let elsewhere = [("User-Agent", "curl/8.5"), ("X-Forwarded-For", "198.51.100.23")]
            for _ in 0..<12 {
                let answer = try await harness.client.send(
                    "GET",
                    "/v1/me/sessions",
                    headers: elsewhere + [("Authorization", "Bearer \(forged)")]
                )
                #expect(answer.status == 401 && answer.string("error") == "invalid_token", "\(answer.json)")
            }
            for path in ["/v1/me/sessions", "/v1/logout", "/v1/log/receipts"] {
                let answer = try await harness.client.send(
                    path == "/v1/logout" ? "POST" : "GET",
                    path,
                    headers: elsewhere
                )
                #expect(answer.status == 401 && answer.string("error") == "invalid_token", "\(path): \(answer.json)")
            }
            try await harness.flushRefusals()
            let refused = try await harness.events(ofType: "request.refused").filter { $0.ip == "198.51.100.23" }
            let counts = Self.counts(of: refused)
            #expect(counts == ["access_token_invalid_signature": 12, "access_token_missing": 3], "\(counts)")
            #expect(refused.count <= 2, "the window's first and one summary, not one event per request")
            #expect(
                refused.allSatisfy { $0.userID == nil && $0.sessionID == nil },
                "nothing in a forged token is trusted"
            )
            #expect(try await harness.events(ofType: "token.access_refused").isEmpty)
            #expect(try await harness.count("SELECT count(*) FROM authlog.sessions WHERE state = 'active'") == 1)
        }
    }

    /// A refresh with a token authlog never issued, or with a body that names none, is refused as before and
    /// counted by address the same way: a loop of them writes at most two events per window.
    @Test func refreshesThatNameNoTokenAreCountedByAddress() async throws {
        try await ServerHarness.run(adjust: ServerHarness.defaultLimits) { harness in
            let session = try await harness.signInDev("mallory-target-2")
            let elsewhere = [("User-Agent", "curl/8.5"), ("X-Forwarded-For", "198.51.100.24")]
            let forged = "alr_" + String(repeating: "A", count: 43)
            for token in [forged, session.accessToken, "alr_x", forged, forged, forged, forged] {
                let answer = try await harness.post(
                    "/v1/token/refresh",
                    .members(["refresh_token": .string(token)]),
                    headers: elsewhere
                )
                #expect(answer.status == 401 && answer.string("error") == "invalid_grant", "\(answer.json)")
            }
            for body in [#"{"token": "x"}"#, "{"] {
                let answer = try await harness.client.send(
                    "POST",
                    "/v1/token/refresh",
                    body: Array(body.utf8),
                    headers: elsewhere + [("Content-Type", "application/json")]
                )
                #expect(answer.status == 400 && answer.string("error") == "invalid_request", "\(answer.json)")
            }
            try await harness.flushRefusals()
            let refused = try await harness.events(ofType: "request.refused").filter { $0.ip == "198.51.100.24" }
            let counts = Self.counts(of: refused)
            #expect(counts == ["refresh_unknown_token": 7, "refresh_malformed_request": 2], "\(counts)")
            #expect(refused.count <= 2, "the window's first and one summary, not one event per request")
            #expect(refused.allSatisfy { $0.userID == nil && $0.sessionID == nil })
            #expect(try await harness.events(ofType: "token.refresh_failed").isEmpty)
            // The session whose access token was sent as a refresh token is untouched.
            #expect(try await harness.count("SELECT count(*) FROM authlog.sessions WHERE state = 'active'") == 1)
        }
    }

    /// Introspection and revocation refused before a token is looked at (wrong or missing client credentials, a
    /// form that cannot be read) and a logout whose body cannot be read are on the record, counted by address or
    /// on the bearer's session, not one event a request: a client-secret guesser leaves a trace.
    @Test func refusedClientCallsAndUnreadableLogoutsAreCounted() async throws {
        try await ServerHarness.run(adjust: ServerHarness.defaultLimits) { harness in
            let session = try await harness.signInDev("mallory-target-3")
            let guesser = [("User-Agent", "curl/8.5"), ("X-Forwarded-For", "198.51.100.25")]
            let wrong = Data("\(Fixture.introspectionClient.id):guess".utf8).base64EncodedString()
            for (path, authorization) in [
                ("/oauth/introspect", "Basic \(wrong)"), ("/oauth/introspect", "Basic \(wrong)"),
                ("/oauth/introspect", "Basic !!"), ("/oauth/revoke", "Basic \(wrong)"),
            ] {
                let answer = try await harness.client.send(
                    "POST",
                    path,
                    body: Array("token=x".utf8),
                    headers: guesser + [
                        ("Content-Type", "application/x-www-form-urlencoded"), ("Authorization", authorization),
                    ]
                )
                #expect(answer.status == 401 && answer.string("error") == "invalid_client", "\(answer.json)")
            }
            let missing = try await harness.oauth("/oauth/revoke", "token_type_hint=refresh_token", headers: guesser)
            #expect(missing.status == 400, "\(missing.json)")
            let logout = try await harness.client.send(
                "POST",
                "/v1/logout",
                body: Array(#"{"scope": "everything"}"#.utf8),
                headers: guesser + [
                    ("Content-Type", "application/json"), ("Authorization", "Bearer \(session.accessToken)"),
                ]
            )
            #expect(logout.status == 400 && logout.string("error") == "invalid_request", "\(logout.json)")
            try await harness.flushRefusals()
            let refused = try await harness.events(ofType: "request.refused").filter { $0.ip == "198.51.100.25" }
            #expect(
                Self.counts(of: refused) == [
                    "introspect_invalid_client": 3, "revoke_invalid_client": 1, "revoke_malformed_request": 1,
                ],
                "\(Self.counts(of: refused))"
            )
            #expect(refused.count <= 2, "the window's first and one summary, not one event per request")
            // The logout refused for its body is counted on the bearer's session, which it did not end.
            let onSession = try await harness.events(ofType: "token.access_refused")
                .filter { $0.sessionID == session.sessionID }
            #expect(Self.counts(of: onSession) == ["logout_malformed_request": 1], "\(Self.counts(of: onSession))")
            #expect(try await harness.count("SELECT count(*) FROM authlog.sessions WHERE state = 'active'") == 1)
        }
    }

    @Test func anAccessTokenOfAnEndedSessionIsRecordedOnThatSession() async throws {
        try await ServerHarness.run { harness in
            let session = try await harness.signInDev("carol")
            let logout = try await harness.send("POST", "/v1/logout", as: session)
            #expect(logout.status == 204 || logout.status == 200, "\(logout.json)")
            for _ in 0..<5 {
                let answer = try await harness.send("GET", "/v1/me/sessions", as: session)
                #expect(answer.status == 401 && answer.string("error") == "invalid_token", "\(answer.json)")
            }
            try await harness.flushRefusals()
            let refused = try await harness.events(ofType: "token.access_refused")
            #expect(refused.count == 2, "the window's first, then one summary")
            #expect(refused.allSatisfy { $0.sessionID == session.sessionID && $0.userID == session.userID })
            #expect(refused.allSatisfy { $0.reason == "session_ended" && $0.ip == "203.0.113.7" })
            #expect(refused.first?.data["counts"] == .object([("session_ended", .number("1"))]))
            #expect(refused.last?.data["counts"] == .object([("session_ended", .number("4"))]))
            #expect(refused.first?.data["route"]?.stringValue == "GET /v1/me/sessions")
            // The user sees the use of the ended session's token in their own activity.
            let again = try await harness.signInDev("carol")
            let activity = try await harness.send("GET", "/v1/me/activity", as: again)
            let types = activity.json["activity"]?.arrayValue?.compactMap { $0["type"]?.stringValue } ?? []
            #expect(types.filter { $0 == "token.access_refused" }.count == 2, "\(types)")
        }
    }

    /// The requests `events` account for, by kind: their `data.counts` summed.
    private static func counts(of events: [StoredEvent]) -> [String: Int] {
        events.reduce(into: [String: Int]()) { sums, event in
            for member in event.data["counts"]?.objectMembers ?? [] {
                sums[member.name, default: 0] += Int(member.value.integerValue ?? 0)
            }
        }
    }

    /// `token` with one character in the middle of its signature changed: still base64url, no longer valid.
    private static func withAlteredSignature(_ token: String) throws -> String {
        var parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        #expect(parts.count == 3)
        var signature = Array(parts[2])
        let middle = signature.count / 2
        signature[middle] = signature[middle] == "A" ? "B" : "A"
        parts[2] = String(signature)
        return parts.joined(separator: ".")
    }
}
