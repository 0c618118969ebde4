import AuthlogCore
import AuthlogTesting
import Foundation
import Testing

extension Servers {
    /// Two `authlog serve` processes on one database push every sealed event to one sink between them: in log
    /// order, through a receiver that fails, a server stopped and one killed, with nothing missed and nothing
    /// repeated beyond whole batches delivered again (at least once). The sink never slows the sign-ins.
    @Suite(.enabled(if: TestDatabase.isAvailable), .serialized)
    struct SinkDeliveryTests {
        static let secret = "a-test-sink-secret-of-forty-characters!!"

        static func configuration(url: String, format: String = "export") -> JSONValue {
            .members([
                "sinks": .array([
                    .members([
                        "name": .string("siem"), "type": .string("http"), "url": .string(url),
                        "secret": .string(Self.secret), "batch_size": .number("7"), "format": .string(format),
                        "maximum_retry_seconds": .number("2"), "timeout_seconds": .number("5"),
                    ])
                ])
            ])
        }

        static func signIn(_ server: ServeProcess, _ subject: String) async throws {
            let answer = try await HTTPTestClient(baseURL: server.baseURL).post(
                "/v1/signin/dev",
                .members(["subject": .string(subject)])
            )
            #expect(answer.status == 200)
        }

        /// Waits until the receiver holds every position of the sealed log (up to 120 s); returns the head.
        static func waitForEverything(_ receiver: SinkReceiver, _ database: TestDatabase) async throws -> Int64 {
            let deadline = ContinuousClock.now + .seconds(120)
            while ContinuousClock.now < deadline {
                let head = try await database.scalar("SELECT size FROM authlog.log_head")
                let queued = try await database.scalar("SELECT count(*) FROM authlog.unsealed_events")
                if queued == 0, head > 0, Set(receiver.positions) == Set(1...head) { return head }
                try await Task.sleep(for: .milliseconds(200))
            }
            return try await database.scalar("SELECT size FROM authlog.log_head")
        }

        @Test func twoServersDeliverEveryEventInOrderThroughFailuresAndRestarts() async throws {
            let database = try await TestDatabase.make()
            let receiver = try await SinkReceiver.start(secret: Self.secret)
            defer { Task { await receiver.stop() } }
            receiver.failNext(3)
            let configuration = Self.configuration(url: receiver.url)
            let first = try await ServeProcess.start(database: database, configuration: configuration)
            var second = try await ServeProcess.start(database: database, configuration: configuration)
            for index in 0..<6 {
                try await Self.signIn(index.isMultiple(of: 2) ? first : second, "before-\(index)")
            }
            var head = try await Self.waitForEverything(receiver, database)
            #expect(Set(receiver.positions) == Set(1...head), "every sealed event arrived despite 3 refusals")
            #expect(receiver.refused == 3)
            let resetCursors = try await database.scalar(
                "SELECT count(*) FROM authlog.sink_cursors WHERE sink = 'siem' AND consecutive_failures = 0"
            )
            #expect(resetCursors == 1, "the cursor's failures were reset by the next delivery")

            // One server stops gracefully, the other is killed while events keep coming; a new one takes over.
            first.stop()
            for index in 0..<4 { try await Self.signIn(second, "between-\(index)") }
            second.kill()
            second = try await ServeProcess.start(database: database, configuration: configuration)
            defer { second.stop() }
            for index in 0..<4 { try await Self.signIn(second, "after-\(index)") }
            head = try await Self.waitForEverything(receiver, database)
            let positions = receiver.positions
            #expect(Set(positions) == Set(1...head), "nothing was missed across the stop, the kill and the restart")
            // At least once: anything repeated is a whole batch sent again, and fresh batches come in log order.
            var delivered: Int64 = 0
            for batch in receiver.batches {
                let batchPositions = batch.lines.compactMap { $0["position"]?.integerValue }
                #expect(batchPositions == Array((batchPositions.first ?? 0)...(batchPositions.last ?? 0)))
                #expect(batch.positions == "\(batchPositions.first ?? 0)-\(batchPositions.last ?? 0)")
                #expect((batchPositions.first ?? 0) <= delivered + 1, "no gap before a batch")
                delivered = max(delivered, batchPositions.last ?? 0)
            }
            #expect(positions.count - Int(head) <= 7, "at most one batch (7 events) was delivered twice")
            #expect(receiver.badSignatures == 0)
            let cursor = try await database.scalar("SELECT delivered_through FROM authlog.sink_cursors")
            #expect(cursor == head)
            let metrics = String(
                decoding: try await HTTPTestClient(baseURL: second.baseURL).send("GET", "/metrics").body,
                as: UTF8.self
            )
            #expect(metrics.contains("authlog_sink_lag_events{sink=\"siem\"} 0"), "\(metrics)")
        }

        @Test func aSinkThatIsDownNeverSlowsSignInsAndIsCounted() async throws {
            let database = try await TestDatabase.make()
            let receiver = try await SinkReceiver.start(secret: Self.secret)
            defer { Task { await receiver.stop() } }
            receiver.failNext(1_000_000)
            let server = try await ServeProcess.start(
                database: database,
                configuration: Self.configuration(url: receiver.url, format: "ocsf")
            )
            defer { server.stop() }
            for index in 0..<5 { try await Self.signIn(server, "down-\(index)") }
            let client = HTTPTestClient(baseURL: server.baseURL)
            let deadline = ContinuousClock.now + .seconds(60)
            var metrics = ""
            while ContinuousClock.now < deadline {
                metrics = String(decoding: try await client.send("GET", "/metrics").body, as: UTF8.self)
                if metrics.contains("authlog_sink_delivery_failures_total{sink=\"siem\"} 2") { break }
                try await Task.sleep(for: .milliseconds(200))
            }
            #expect(metrics.contains("authlog_sink_delivery_failures_total{sink=\"siem\"} 2"), "\(metrics)")
            #expect(metrics.contains("authlog_sink_events_delivered_total{sink=\"siem\"} 0"))
            #expect(
                try await database.scalar(
                    "SELECT count(*) FROM authlog.sink_cursors WHERE last_error = 'answered HTTP 503'"
                ) == 1
            )
            // The receiver comes back: the same events arrive as OCSF, signed, from the cursor that never moved.
            receiver.failNext(0)
            let head = try await Self.waitForEverything(receiver, database)
            #expect(Set(receiver.positions) == Set(1...head))
            let first = try #require(receiver.batches.first?.lines.first)
            #expect((first["class_uid"]?.integerValue ?? 0) > 1000 && first["metadata"]?["sequence"]?.integerValue == 1)
        }
    }
}
