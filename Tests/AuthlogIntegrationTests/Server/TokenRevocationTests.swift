import AuthlogCore
import AuthlogServer
import AuthlogTesting
import Foundation
import Testing

/// RFC 7009 `POST /oauth/revoke`.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct TokenRevocationTests {
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
