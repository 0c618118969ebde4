import AuthlogCore
import AuthlogTesting
import Foundation
import Testing

extension Servers {
    /// Requests the HTTP parser refuses leave a trace in the log without one event each: a real `authlog serve`
    /// answers each 400 below the router and records them per address as a window's first `request.refused`
    /// and one summary whose counts add up.
    @Suite(.enabled(if: TestDatabase.isAvailable), .serialized)
    struct EdgeRefusalTests {
        @Test func twoHundredBrokenRequestsAreTwoEventsAWindowThatCountThemAll() async throws {
            let database = try await TestDatabase.make()
            let server = try await ServeProcess.start(
                database: database,
                configuration: .members(["rate_limits": .members(["window_seconds": .number("10")])])
            )
            defer { server.stop() }
            let port = server.port
            let started = ContinuousClock.now
            let statuses = try await onOwnThread { () -> Result<[Int?], any Error> in
                Result {
                    try (0..<200).map { index in
                        let connection = try RawConnection(port: port, from: "127.0.0.2")
                        defer { connection.close() }
                        try connection.write(Array("BROKEN \(index) NONSENSE\r\n\r\n".utf8))
                        return try connection.readAnswer(timeout: .seconds(30))?.status
                    }
                }
            }.get()
            #expect(statuses.allSatisfy { $0 == 400 }, "each is answered: \(Set(statuses.map { $0 ?? 0 }))")
            // Each 10 s window the flood spanned writes its first refusal and one summary.
            let windows = Int64((ContinuousClock.now - started).components.seconds / 10) + 1
            // The first at once (within a second), the summary when the window ends.
            let deadline = ContinuousClock.now + .seconds(60)
            var counted: Int64 = 0
            while ContinuousClock.now < deadline {
                counted = try await database.scalar(
                    """
                    SELECT coalesce(sum(c.value::int), 0) FROM authlog.events e, jsonb_each_text(e.data->'counts') c
                    WHERE e.type = 'request.refused' AND e.ip = '127.0.0.2'
                    """
                )
                if counted >= 200 { break }
                try await Task.sleep(for: .milliseconds(250))
            }
            #expect(counted == 200, "every refused request is counted")
            let events = try await database.scalar(
                "SELECT count(*) FROM authlog.events WHERE type = 'request.refused' AND ip = '127.0.0.2'"
            )
            #expect(
                events >= 2 && events <= 2 * windows,
                "a first and one summary per window, not one event each: \(events)"
            )
            let reasons = try await database.scalar(
                """
                SELECT count(*) FROM authlog.events
                WHERE type = 'request.refused' AND ip = '127.0.0.2' AND reason = 'invalid_request'
                  AND outcome = 'failure' AND data->>'window_seconds' = '10'
                """
            )
            #expect(reasons == events, "named by the refusal's code")
        }
    }
}
