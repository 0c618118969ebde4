import AuthlogAccounts
import AuthlogCore
import Foundation
import Testing

/// RFC 7009 revocation, decided by TokenService.revoke.
struct TokenRevocationTests {
    static let client = "resource-server"

    @Test func revokingARefreshTokenRevokesItsFamilyAndTheSessionsAccessTokens() async throws {
        let rules = try RuleHarness()
        let session = try await rules.signIn("alice")
        let rotated = try await rules.tokens.refresh(session.refreshToken, metadata: RuleHarness.request)
        try await rules.tokens.revoke(
            rotated.refreshToken,
            hint: .refreshToken,
            clientID: Self.client,
            metadata: RuleHarness.request
        )
        #expect(try await rules.refreshes(rotated.refreshToken) == false)
        #expect(try await rules.tokens.introspect(rotated.accessToken) == .object([("active", .bool(false))]))
        #expect(try await rules.tokens.introspect(rotated.refreshToken) == .object([("active", .bool(false))]))
        let revoked = try #require(rules.events(.tokenRevoked).first)
        #expect(revoked.data["actor"] == .string("client:\(Self.client)"))
        #expect(revoked.data["token_kind"]?.stringValue == "refresh_token")
        #expect(revoked.sessionID == session.sessionID)
        #expect(try await rules.refreshes(session.refreshToken) == false)
    }

    @Test func revokingAnAccessTokenEndsItsSessionAndAWrongHintStillFindsIt() async throws {
        let rules = try RuleHarness()
        let session = try await rules.signIn("alice")
        try await rules.tokens.revoke(
            session.accessToken,
            hint: .refreshToken,
            clientID: Self.client,
            metadata: RuleHarness.request
        )
        #expect(try await rules.tokens.introspect(session.accessToken) == .object([("active", .bool(false))]))
        #expect(try await rules.refreshes(session.refreshToken) == false)
        #expect(rules.events(.tokenRevoked).first?.data["token_kind"]?.stringValue == "access_token")
        #expect(rules.events(.sessionRevoked).first?.reason == "token_revoked")
    }

    @Test func unknownTokensAreAcceptedAndChangeNothing() async throws {
        let rules = try RuleHarness()
        let session = try await rules.signIn("alice")
        let before = rules.stores.events.events.count
        for token in ["alr_unknown", "garbage", "eyJhbGciOiJFUzI1NiJ9.e30.AAAA"] {
            for hint in [nil, TokenTypeHint.accessToken, .refreshToken] {
                try await rules.tokens.revoke(token, hint: hint, clientID: Self.client, metadata: RuleHarness.request)
            }
        }
        #expect(rules.stores.events.events.count == before)
        #expect(try await rules.refreshes(session.refreshToken))
    }
}
