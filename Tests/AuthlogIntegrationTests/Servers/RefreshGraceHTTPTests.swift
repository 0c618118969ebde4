import AuthlogAccounts
import AuthlogCore
import AuthlogPostgres
import AuthlogServer
import AuthlogTesting
import Foundation
import Testing

extension Servers {
    /// The refresh-token reuse grace window over HTTP and PostgreSQL: concurrent refreshes of one token across
    /// the server's connections all get the one pair the winner issued.
    @Suite(.enabled(if: TestDatabase.isAvailable))
    struct RefreshGraceHTTPTests {
        @Test func eightConcurrentRefreshesGetEightIdenticalAnswers() async throws {
            // The longest window: the seven replays take turns on the session stream, which on a loaded test
            // machine can take longer than the default 10 s.
            try await ServerHarness.run(adjust: withLongestRefreshGrace) { harness in
                let signin = try await RefreshAndLogoutTests.signIn(harness)
                let token = try #require(signin.string("refresh_token"))
                let answers = try await withThrowingTaskGroup(of: HTTPTestClient.Answer.self) { group in
                    for _ in 0..<8 { group.addTask { try await RefreshAndLogoutTests.refresh(harness, token) } }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                if answers.map(\.status) != Array(repeating: 200, count: 8) {
                    // Seen once in CI under load (2 answered, 6 refused): the timeline says which rule refused.
                    let timeline = try await harness.database.connect().query(
                        """
                        SELECT string_agg(concat_ws(' ', position, type, occurred_at, recorded_at, reason, data::text),
                                          E'\n' ORDER BY position)
                        FROM authlog.events WHERE type LIKE 'token.%' OR type LIKE 'session.%'
                        """
                    )
                    let text = try timeline.first?.decode(String?.self, at: 0) ?? "-"
                    Issue.record("answers \(answers.map(\.status)): \(answers.map(\.json))\nevents:\n\(text)")
                }
                let pairs = Set(
                    answers.map { "\($0.string("refresh_token") ?? "-") \($0.string("access_token") ?? "-")" }
                )
                #expect(pairs.count == 1)
                let next = try #require(answers.first?.string("refresh_token"))
                #expect(next != token)
                #expect(Set(answers.map { $0.string("refresh_token_expires_at") }).count == 1)
                #expect(
                    try await harness.count("SELECT count(*) FROM authlog.events WHERE type = 'token.refreshed'") == 1
                )
                #expect(
                    try await harness.count("SELECT count(*) FROM authlog.events WHERE type = 'token.refresh_replayed'")
                        == 7
                )
                #expect(
                    try await harness.count("SELECT count(*) FROM authlog.events WHERE type = 'token.reuse_detected'")
                        == 0
                )
                #expect(try await harness.count("SELECT count(*) FROM authlog.sessions WHERE state = 'active'") == 1)
                // Each replay names the one rotation.
                #expect(
                    try await harness.count(
                        """
                        SELECT count(*) FROM authlog.events r JOIN authlog.events o
                            ON o.event_id = (r.data->>'refreshed_event_id')::uuid
                        WHERE r.type = 'token.refresh_replayed' AND o.type = 'token.refreshed'
                        """
                    ) == 7
                )
                // Neither token is stored in clear: the spent row keeps only a sealed box.
                #expect(
                    try await harness.count(
                        """
                        SELECT count(*) FROM authlog.refresh_tokens
                        WHERE state = 'rotated' AND successor_sealed IS NOT NULL
                            AND position(convert_to(\(next), 'UTF8') IN successor_sealed) = 0
                        """
                    ) == 1
                )
                // The pair works, and the one session goes on.
                #expect(try await RefreshAndLogoutTests.refresh(harness, next).status == 200)
            }
        }

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

/// The longest refresh-token reuse grace window, 60 s.
func withLongestRefreshGrace(_ configuration: inout ServerConfiguration) {
    withRefreshGrace(60, &configuration)
}

/// Sets `refresh_token.reuse_grace_seconds`.
func withRefreshGrace(_ seconds: Int, _ configuration: inout ServerConfiguration) {
    configuration.refreshToken = try? JSONValue.members(["reuse_grace_seconds": .number(String(seconds))])
        .decode(ServerConfiguration.RefreshTokenSettings.self)
}
