import AuthlogCore
import AuthlogServer
import AuthlogTesting
import Foundation
import Testing

/// Blank or odd request values (User-Agent, client_id) never keep an attempt out of the log: every value
/// that reaches an event's envelope is normalised (blank → null, control characters escaped, long values
/// cut), so the sign-in, refresh, reuse and logout below are answered and recorded as usual.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct EnvelopeValueTests {
    static let oddUserAgents = ["", "   ", "\t"]

    @Test(arguments: Self.oddUserAgents)
    func aBlankUserAgentSignsInAndIsRecordedAsNull(userAgent: String) async throws {
        try await ServerHarness.run { harness in
            let answer = try await harness.post(
                "/v1/signin/dev",
                .members(["subject": "alice"]),
                headers: [("User-Agent", userAgent)]
            )
            #expect(answer.status == 200)
            let events = try await harness.events()
            #expect(events.map(\.type) == ["user.registered", "signin.succeeded", "token.issued"])
            #expect(events.allSatisfy { $0.userAgent == nil })
        }
    }

    @Test func aFailedSignInWithABlankUserAgentIsRecorded() async throws {
        try await ServerHarness.run { harness in
            let answer = try await harness.post(
                "/v1/signin/apple",
                .members(["id_token": "not.a.token", "client_id": ""]),
                headers: [("User-Agent", "")]
            )
            #expect(answer.status == 401)
            #expect(answer.string("error") == "malformed")
            let events = try await harness.events()
            #expect(events.map(\.type) == ["signin.failed"])
            #expect(events.first?.reason == "malformed")
            #expect(events.first?.userAgent == nil)
            #expect(events.first?.clientID == nil)
        }
    }

    @Test(arguments: ["", "  ", "app\u{0}evil", "app\u{1B}[31mred"])
    func oddClientIDsAreNormalisedNotRefused(clientID: String) async throws {
        try await ServerHarness.run { harness in
            // A valid sign-in is answered (the provider names the client for it)…
            let valid = try await harness.post(
                "/v1/signin/dev",
                .members(["subject": "alice", "client_id": .string(clientID)])
            )
            #expect(valid.status == 200)
            // …and a refused one is recorded with the app's client_id in its normal form.
            let refused = try await harness.post(
                "/v1/signin/apple",
                .members(["id_token": "not.a.token", "client_id": .string(clientID)])
            )
            #expect(refused.status == 401)
            let failed = try await harness.events().filter { $0.type == "signin.failed" }
            let expected = EnvelopeText.normalized(clientID, limit: EnvelopeText.Limit.clientID)
            #expect(failed.map(\.clientID) == [expected])
            if !clientID.trimmingCharacters(in: .whitespaces).isEmpty {
                #expect(expected?.contains("\\u{") == true, "the control character is kept, escaped")
            }
        }
    }

    @Test func refreshReuseAndLogoutWithBlankValuesAreRecorded() async throws {
        try await ServerHarness.run(adjust: withoutRefreshGrace) { harness in
            let blank = [("User-Agent", "")]
            let signin = try await harness.post(
                "/v1/signin/dev",
                .members(["subject": "bob", "client_id": "a\u{0}b"]),
                headers: blank
            )
            #expect(signin.status == 200)
            let first = try #require(signin.string("refresh_token"))
            let rotated = try await harness.post(
                "/v1/token/refresh",
                .members(["refresh_token": .string(first)]),
                headers: blank
            )
            #expect(rotated.status == 200)
            // The rotated token again: refused, and the reuse is recorded and revokes the family.
            let reuse = try await harness.post(
                "/v1/token/refresh",
                .members(["refresh_token": .string(first)]),
                headers: blank
            )
            #expect(reuse.status == 401)
            #expect(reuse.string("error") == "invalid_grant")
            let second = try #require(rotated.string("refresh_token"))
            #expect(
                try await harness.post(
                    "/v1/token/refresh",
                    .members(["refresh_token": .string(second)]),
                    headers: blank
                )
                .status == 401
            )
            let types = try await harness.events().map(\.type)
            #expect(types.filter { $0 == "token.reuse_detected" }.count == 1)
            #expect(types.filter { $0 == "token.refresh_failed" }.count == 1)
            #expect(
                try await harness.count("SELECT count(*) FROM authlog.refresh_tokens WHERE state <> 'revoked'") == 0
            )

            let other = try await harness.post("/v1/signin/dev", .members(["subject": "carol"]), headers: blank)
            let access = try #require(other.string("access_token"))
            let logout = try await harness.client.send(
                "POST",
                "/v1/logout",
                headers: [("Authorization", "Bearer \(access)"), ("User-Agent", " ")]
            )
            #expect(logout.status == 204)
            let events = try await harness.events()
            #expect(events.last?.type == "session.logged_out")
            #expect(events.allSatisfy { $0.userAgent == nil })
        }
    }

    /// A write the database refuses for a reason of its own (here a trigger standing in for any such fault)
    /// is a 500 of ours, never a 503, which means only that the database cannot be reached; and the attempt
    /// is still recorded.
    @Test func aRefusedWriteIsA500AndTheAttemptIsRecorded() async throws {
        try await ServerHarness.run { harness in
            let signin = try await harness.post("/v1/signin/dev", .members(["subject": "dave"]))
            let token = try #require(signin.string("refresh_token"))
            try await harness.database.connect().execute(
                """
                CREATE FUNCTION authlog.refuse_for_test() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN RAISE EXCEPTION 'refused for the test' USING ERRCODE = 'P0001'; END $$;
                CREATE TRIGGER refuse_for_test BEFORE INSERT ON authlog.event_records FOR EACH ROW
                    WHEN (NEW.type IN ('signin.succeeded', 'token.refreshed')) EXECUTE FUNCTION authlog.refuse_for_test();
                """
            )
            let refused = try await harness.post("/v1/signin/dev", .members(["subject": "erin"]))
            #expect(refused.status == 500)
            #expect(refused.string("error") == "internal_error")
            let refresh = try await harness.post("/v1/token/refresh", .members(["refresh_token": .string(token)]))
            #expect(refresh.status == 500)
            #expect(refresh.string("error") == "internal_error")
            let failures = try await harness.events().filter { $0.outcome == "failure" }
            #expect(failures.map(\.type) == ["signin.failed", "token.refresh_failed"])
            #expect(failures.allSatisfy { $0.reason == "internal_error" })
        }
    }
}
