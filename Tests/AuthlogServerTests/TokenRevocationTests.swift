import AuthlogCore
import AuthlogServer
import AuthlogTesting
import Foundation
import Testing

/// RFC 7009 `POST /oauth/revoke`.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct TokenRevocationTests {
    @Test func revokingARefreshTokenRevokesItsFamilyAndTheSessionsAccessTokens() async throws {
        try await ServerHarness.run { harness in
            let session = try await harness.signInDev()
            let rotated = try await harness.refresh(session.refreshToken)
            let current = try #require(rotated.string("refresh_token"))
            let access = try #require(rotated.string("access_token"))

            let answer = try await harness.oauth("/oauth/revoke", "token=\(current)&token_type_hint=refresh_token")
            #expect(answer.status == 200)
            #expect(answer.body.isEmpty)
            #expect(try await harness.refresh(current).status == 401)
            #expect(try await harness.introspect(access) == .object([("active", .bool(false))]))
            #expect(try await harness.introspect(current) == .object([("active", .bool(false))]))
            let revoked = try #require(try await harness.events(ofType: "token.revoked").first)
            #expect(revoked.data["actor"] == .string("client:\(Fixture.introspectionClient.id)"))
            #expect(revoked.data["token_kind"] == "refresh_token")
            #expect(revoked.sessionID == session.sessionID)
            #expect(
                try await harness.count(
                    "SELECT count(*) FROM authlog.refresh_tokens WHERE session_id = \(session.sessionID) AND state <> 'revoked'"
                ) == 0
            )
        }
    }

    @Test func revokingAnAccessTokenEndsItsSessionAndAWrongHintStillFindsIt() async throws {
        try await ServerHarness.run { harness in
            let session = try await harness.signInDev()
            let answer = try await harness.oauth(
                "/oauth/revoke",
                "token=\(session.accessToken)&token_type_hint=refresh_token"
            )
            #expect(answer.status == 200)
            #expect(try await harness.introspect(session.accessToken) == .object([("active", .bool(false))]))
            #expect(try await harness.refresh(session.refreshToken).status == 401)
            #expect(try await harness.events(ofType: "token.revoked").first?.data["token_kind"] == "access_token")
            #expect(try await harness.events(ofType: "session.revoked").first?.reason == "token_revoked")
        }
    }

    @Test func unknownTokensAreAcceptedAndChangeNothingAndAnUnknownHintIsRefused() async throws {
        try await ServerHarness.run { harness in
            let session = try await harness.signInDev()
            let before = try await harness.events().count
            for token in ["alr_unknown", "garbage", "eyJhbGciOiJFUzI1NiJ9.e30.AAAA"] {
                #expect(try await harness.oauth("/oauth/revoke", "token=\(token)").status == 200)
            }
            #expect(try await harness.events().count == before)
            let hint = try await harness.oauth(
                "/oauth/revoke",
                "token=\(session.refreshToken)&token_type_hint=id_token"
            )
            #expect(hint.status == 400)
            #expect(hint.string("error") == "unsupported_token_type")
            #expect(try await harness.refresh(session.refreshToken).status == 200)

            let anonymous = try await harness.client.send(
                "POST",
                "/oauth/revoke",
                body: Array("token=\(session.refreshToken)".utf8),
                headers: [("Content-Type", "application/x-www-form-urlencoded")]
            )
            #expect(anonymous.status == 401)
            #expect(anonymous.string("error") == "invalid_client")
        }
    }
}
