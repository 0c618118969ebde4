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

    /// A database that cannot be reached while a client revokes or introspects an access token: 503, not the
    /// 200 of an unknown token (which would say "revoked" while the session lives on), nor `active: false`.
    @Test func anAccessTokenWhoseSessionCannotBeReadIsNotTakenForAnUnknownOne() async throws {
        let rules = try RuleHarness()
        let session = try await rules.signIn("alice")
        var state = rules.stores.accountState
        state.queries = UnreachableSessions(wrapping: state.queries)
        let tokens = TokenService(dependencies: rules.dependencies(state: state))
        let before = rules.stores.events.events.count
        for hint in [nil, TokenTypeHint.accessToken, .refreshToken] {
            let refused = await #expect(throws: ServiceError.self) {
                try await tokens.revoke(
                    session.accessToken,
                    hint: hint,
                    clientID: Self.client,
                    metadata: RuleHarness.request
                )
            }
            #expect(refused?.code == "database_unavailable")
        }
        let introspected = await #expect(throws: ServiceError.self) { try await tokens.introspect(session.accessToken) }
        #expect(introspected?.code == "database_unavailable")
        #expect(rules.stores.events.events.count == before)
        // With the database back the token is still live, and revoking it works.
        #expect(try await rules.isActive(session.accessToken))
        try await rules.tokens.revoke(
            session.accessToken,
            hint: nil,
            clientID: Self.client,
            metadata: RuleHarness.request
        )
        #expect(try await rules.isActive(session.accessToken) == false)
    }
}

/// Session reads whose session lookups fail as an unreachable database does (the access token's path); the rest
/// are the wrapped reads', so an access token's refresh-token lookup still finds nothing.
private struct UnreachableSessions: SessionReads {
    let wrapped: any SessionReads

    init(wrapping wrapped: any SessionReads) { self.wrapped = wrapped }

    struct Unreachable: StoreFailure {
        var meansStoreUnreachable: Bool { true }
        var logDetail: String { "connection refused (test)" }
    }

    func identities(provider: String, subjectHashes: [String]) async throws -> [String: IdentityRecord] {
        try await self.wrapped.identities(provider: provider, subjectHashes: subjectHashes)
    }
    func identities(of userID: UUID) async throws -> [IdentityRecord] { try await self.wrapped.identities(of: userID) }
    func refreshToken(hash: [UInt8], withSessionSignin: Bool) async throws -> RefreshTokenRecord? {
        try await self.wrapped.refreshToken(hash: hash, withSessionSignin: withSessionSignin)
    }
    func session(_ sessionID: UUID) async throws -> SessionRecord? { throw Unreachable() }
    func activeSessions(of userID: UUID, provider: String?) async throws -> [(session: SessionRecord, version: Int32)] {
        try await self.wrapped.activeSessions(of: userID, provider: provider)
    }
    func userExists(_ userID: UUID) async throws -> Bool { try await self.wrapped.userExists(userID) }
    func isReachable() async -> Bool { false }
}
