import AuthlogCore
import AuthlogPostgres
import AuthlogTesting
import Foundation
import Testing

extension Servers {
    /// docs/signin.md's promise under the default configuration, against a real `authlog serve`: eight
    /// concurrent refreshes with one refresh token give eight identical answers, one `token.refreshed` and seven
    /// `token.refresh_replayed`, and the session goes on. Nothing is changed or turned off: the per-family
    /// limit (burst 10), the per-address `refresh` group and the 10 s grace window are the defaults.
    @Suite(.enabled(if: TestDatabase.isAvailable))
    struct ConcurrentRefreshPromiseTests {
        /// Rounds of the race: a race shows only now and then, so it is run many times.
        static let rounds = 20

        @Test func eightConcurrentRefreshesOfOneTokenGetEightIdenticalAnswers() async throws {
            try await ClientTestServer.run { server in
                let port = try #require(server.baseURL.port)
                let database = try await server.database.connect()
                for round in 0..<Self.rounds {
                    // Each round is one device with its own session, on an address of its own.
                    try await Self.race(round: round, port: port, from: "127.0.0.\(10 + round)", database: database)
                }
                #expect(
                    try await server.database.scalar(
                        "SELECT count(*) FROM authlog.event_records WHERE type = 'token.reuse_detected'"
                    ) == 0
                )
                #expect(
                    try await server.database.scalar(
                        "SELECT count(*) FROM authlog.event_records WHERE type = 'token.refreshed'"
                    ) == Int64(Self.rounds * 2)
                )
            }
        }

        /// One device signs in, refreshes eight times at once with its refresh token, then once more with the
        /// pair it got.
        static func race(round: Int, port: Int, from source: String, database: Connection) async throws {
            let signin = try #require(
                try await SimultaneousRequests.send(
                    [SimultaneousRequests.post("/v1/signin/dev", .members(["subject": .string("refresher-\(round)")]))],
                    port: port,
                    from: source
                ).first
            )
            let token = try #require(signin.string("refresh_token"), "round \(round): \(signin.status)")
            let session = try #require(signin.string("session_id"))
            let refresh = SimultaneousRequests.post("/v1/token/refresh", .members(["refresh_token": .string(token)]))
            let answers = try await SimultaneousRequests.send(
                Array(repeating: refresh, count: 8),
                port: port,
                from: source
            )
            #expect(answers.map(\.status) == Array(repeating: 200, count: 8), "round \(round): \(answers.map(\.json))")
            let pairs = Set(
                answers.map {
                    [
                        $0.string("refresh_token"), $0.string("access_token"), $0.string("refresh_token_expires_at"),
                        $0.string("access_token_expires_at"), $0.string("session_id"),
                    ].map { $0 ?? "-" }
                }
            )
            #expect(pairs.count == 1, "round \(round): one pair for all eight")
            let next = try #require(answers.first { $0.status == 200 }?.string("refresh_token"))
            #expect(next != token && answers.first?.string("session_id") == session)

            // What the server recorded for each request: one event, the rotation for one of them and a replay
            // naming that rotation for each of the others; each answer names its own event.
            var recorded: [(type: String, id: String)] = []
            for answer in answers {
                let events = try await SimultaneousRequests.events(of: answer, in: database)
                #expect(events.count == 1, "round \(round): \(events.map(\.type))")
                #expect(Set(SimultaneousRequests.eventIDs(of: answer)) == Set(events.map(\.id)))
                recorded += events
            }
            #expect(recorded.filter { $0.type == "token.refreshed" }.count == 1, "round \(round)")
            #expect(recorded.filter { $0.type == "token.refresh_replayed" }.count == 7, "round \(round)")
            let rotation = recorded.first { $0.type == "token.refreshed" }?.id ?? "-"
            #expect(
                try await database.query(
                    """
                    SELECT count(*) FROM authlog.event_records
                    WHERE type = 'token.refresh_replayed' AND (data->>'refreshed_event_id')::uuid = \(rotation)::uuid
                    """
                ).first?.decode(Int64.self, at: 0) == 7
            )
            let sessionEvents = try await database.query(
                """
                SELECT type FROM authlog.event_records WHERE stream = \("session-" + session) ORDER BY stream_version
                """
            ).rows.map { try $0.decode(String.self, at: 0) }
            #expect(
                sessionEvents
                    == ["signin.succeeded", "token.issued", "token.refreshed"]
                    + Array(repeating: "token.refresh_replayed", count: 7),
                "round \(round): no reuse, no failure"
            )

            // The pair is kept only sealed, with the spent token's row: neither token is stored in clear.
            #expect(
                try await database.query(
                    """
                    SELECT count(*) FROM authlog.refresh_tokens
                    WHERE session_id = \(session)::uuid AND state = 'rotated' AND successor_sealed IS NOT NULL
                        AND position(convert_to(\(next), 'UTF8') IN successor_sealed) = 0
                        AND position(convert_to(\(token), 'UTF8') IN successor_sealed) = 0
                    """
                ).first?.decode(Int64.self, at: 0) == 1
            )

            // The pair works, and the one session goes on.
            let then = try #require(
                try await SimultaneousRequests.send(
                    [SimultaneousRequests.post("/v1/token/refresh", .members(["refresh_token": .string(next)]))],
                    port: port,
                    from: source
                ).first
            )
            #expect(then.status == 200, "round \(round): \(then.json.map { String(describing: $0) } ?? "-")")
            #expect(
                try await database.query(
                    "SELECT state FROM authlog.sessions WHERE session_id = \(session)::uuid"
                ).first?.decode(String.self, at: 0) == "active"
            )
        }
    }
}
