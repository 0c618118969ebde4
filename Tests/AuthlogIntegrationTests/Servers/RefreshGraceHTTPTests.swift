import AuthlogAccounts
import AuthlogCore
import AuthlogPostgres
import AuthlogServer
import AuthlogTesting
import Foundation
import Testing

extension Servers {
    /// The refresh-token reuse grace window over HTTP and PostgreSQL, turned off. (With the default window,
    /// concurrent refreshes of one token all get the one pair the winner issued: ConcurrentRefreshPromiseTests.)
    @Suite(.enabled(if: TestDatabase.isAvailable))
    struct RefreshGraceHTTPTests {
        @Test func withTheGraceOffAConcurrentRefreshIsReuse() async throws {
            try await ServerHarness.run(adjust: withoutRefreshGrace) { harness in
                let signin = try await RefreshAndLogoutTests.signIn(harness)
                let token = try #require(signin.string("refresh_token"))
                #expect(try await RefreshAndLogoutTests.refresh(harness, token).status == 200)
                let again = try await RefreshAndLogoutTests.refresh(harness, token)
                #expect(again.status == 401 && again.string("error") == "invalid_grant")
                #expect(
                    try await harness.count("SELECT count(*) FROM authlog.events WHERE type = 'token.reuse_detected'")
                        == 1
                )
                #expect(
                    try await harness.count(
                        "SELECT count(*) FROM authlog.refresh_tokens WHERE successor_sealed IS NOT NULL"
                    ) == 0
                )
            }
        }
    }
}

/// `refresh_token.reuse_grace_seconds` is range-checked like the other `refresh_token.*` keys.
struct RefreshGraceConfigurationTests {
    static func settings(_ value: JSONValue?) throws -> ServiceSettings {
        let refresh: [(name: String, value: JSONValue)] = value.map { [("reuse_grace_seconds", $0)] } ?? []
        let document = JSONValue.object([("refresh_token", .object(refresh))])
        return try ServiceSettings(configuration: try document.decode(ServerConfiguration.self))
    }

    @Test func theGraceIsTenSecondsUnlessConfiguredFromZeroToSixty() throws {
        #expect(try Self.settings(nil).refreshReuseGrace == 10)
        #expect(ServiceSettings().refreshReuseGrace == 10)
        #expect(try Self.settings(.number("0")).refreshReuseGrace == 0)
        #expect(try Self.settings(.number("60")).refreshReuseGrace == 60)
        for wrong: JSONValue in [.number("61"), .number("-1")] {
            let error = #expect(throws: ServerConfiguration.Invalid.self) { try Self.settings(wrong) }
            #expect(error?.description == "refresh_token.reuse_grace_seconds must be 0 to 60")
        }
        #expect(throws: (any Error).self) { try Self.settings(.string("10")) }
        #expect(throws: (any Error).self) { try Self.settings(.number("1.5")) }
    }
}

/// Turns the refresh-token reuse grace window off (`refresh_token.reuse_grace_seconds: 0`), for the tests of
/// reuse detection that present a spent token at once, which the default window would answer.
func withoutRefreshGrace(_ configuration: inout ServerConfiguration) {
    withRefreshGrace(0, &configuration)
}

/// Sets `refresh_token.reuse_grace_seconds`.
func withRefreshGrace(_ seconds: Int, _ configuration: inout ServerConfiguration) {
    configuration.refreshToken = try? JSONValue.members(["reuse_grace_seconds": .number(String(seconds))])
        .decode(ServerConfiguration.RefreshTokenSettings.self)
}
