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

        /// One entry of `sinks`: batches of 7, retried after 1 s doubling up to 2 s.
        static func sink(_ name: String, url: String, timeoutSeconds: Int = 5) -> JSONValue {
            .members([
                "name": .string(name), "type": .string("http"), "url": .string(url),
                "secret": .string(Self.secret), "batch_size": .number("7"), "maximum_retry_seconds": .number("2"),
                "timeout_seconds": .number(String(timeoutSeconds)),
            ])
        }

        /// The value of `name{sink="…"}` in a /metrics answer.
        static func metric(_ text: String, _ name: String, sink: String) -> Int64? {
            let prefix = "\(name){sink=\"\(sink)\"} "
            return text.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap {
                Int64($0.dropFirst(prefix.count))
            }
        }

        static func metrics(_ server: ServeProcess) async throws -> String {
            String(
                decoding: try await HTTPTestClient(baseURL: server.baseURL).send("GET", "/metrics").body,
                as: UTF8.self
            )
        }

        /// The sealed events of `type`, oldest first: outcome, reason, stream and data.
        static func events(
            _ type: String,
            in database: TestDatabase
        ) async throws -> [(outcome: String, reason: String?, stream: String, data: JSONValue)] {
            try await database.connect().query(
                "SELECT outcome, reason, stream, data FROM authlog.events WHERE type = \(type) ORDER BY position"
            ).rows.map {
                (
                    try $0.decode(String.self, at: 0), try $0.decode(String?.self, at: 1),
                    try $0.decode(String.self, at: 2), try $0.decode(JSONValue.self, at: 3)
                )
            }
        }

        /// Waits up to `limit` for `condition`.
        static func wait(
            _ limit: Duration = .seconds(60),
            until condition: () async throws -> Bool
        ) async throws -> Bool {
            let deadline = ContinuousClock.now + limit
            while ContinuousClock.now < deadline {
                if try await condition() { return true }
                try await Task.sleep(for: .milliseconds(200))
            }
            return try await condition()
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
            // The server commits the cursor after the receiver's answer: the last batch's may still be on its way.
            let caughtUp = try await Self.wait(.seconds(30)) {
                try await database.scalar("SELECT delivered_through FROM authlog.sink_cursors") == head
            }
            let cursor = try await database.scalar("SELECT delivered_through FROM authlog.sink_cursors")
            #expect(caughtUp, "the cursor is at \(cursor), the head at \(head)")
            var metrics = ""
            _ = try await Self.wait(.seconds(30)) {
                metrics = String(
                    decoding: try await HTTPTestClient(baseURL: second.baseURL).send("GET", "/metrics").body,
                    as: UTF8.self
                )
                return metrics.contains("authlog_sink_lag_events{sink=\"siem\"} 0")
            }
            #expect(metrics.contains("authlog_sink_lag_events{sink=\"siem\"} 0"), "\(metrics)")
        }

        /// Three sinks: one whose receiver answers 503, one that takes 3 s per answer, one that works. The working
        /// one gets everything while the slow one is still behind (each sink on its own schedule). The one that is
        /// down shows its true lag in /metrics — the log's head, since it acknowledged nothing — and its fifth
        /// failure in a row is recorded once as `audit.sink_failing`, however many follow; when it answers again
        /// one `audit.sink_recovered` ends the episode and everything it missed arrives.
        @Test func aSinkThatIsDownShowsItsTrueLagAndOneEpisodeWhileTheOthersKeepDelivering() async throws {
            let database = try await TestDatabase.make()
            let down = try await SinkReceiver.start(secret: Self.secret)
            let slow = try await SinkReceiver.start(secret: Self.secret)
            let working = try await SinkReceiver.start(secret: Self.secret)
            defer { Task { for receiver in [down, slow, working] { await receiver.stop() } } }
            down.failNext(1_000_000)
            slow.answerAfter(.seconds(3))
            let server = try await ServeProcess.start(
                database: database,
                configuration: .members([
                    "sinks": .array([
                        Self.sink("down", url: down.url), Self.sink("slow", url: slow.url, timeoutSeconds: 10),
                        Self.sink("siem", url: working.url),
                    ])
                ])
            )
            defer { server.stop() }
            let started = ContinuousClock.now
            for index in 0..<6 { try await Self.signIn(server, "many-\(index)") }
            let head = try await Self.waitForEverything(working, database)
            print("the working sink had all \(head) events after \(ContinuousClock.now - started)")
            #expect(Set(working.positions) == Set(1...head))
            #expect(
                Set(slow.positions).count < head,
                "the slow sink (3 s a batch of 7) is still behind: \(Set(slow.positions).count) of \(head)"
            )

            #expect(try await Self.wait { try await !Self.events("audit.sink_failing", in: database).isEmpty })
            let failing = try await Self.events("audit.sink_failing", in: database)
            #expect(failing.count == 1)
            let episode = try #require(failing.first)
            #expect(
                episode.outcome == "failure" && episode.reason == "delivery_failed" && episode.stream == "audit-sinks"
            )
            #expect(episode.data["sink"] == .string("down") && episode.data["failures"]?.integerValue == 5)
            #expect(episode.data["last_error"] == .string("answered HTTP 503"))
            #expect(episode.data["delivered_through"]?.integerValue == 0)
            #expect((episode.data["lag_events"]?.integerValue ?? 0) >= head)
            let since = try #require(episode.data["failing_since"]?.stringValue)
            #expect(Timestamp(iso8601: since) != nil)

            // The failures go on; /metrics shows the truth for the sink that is down: nothing acknowledged, the
            // whole log behind, and this process delivering.
            var text = ""
            #expect(
                try await Self.wait {
                    text = try await Self.metrics(server)
                    return (Self.metric(text, "authlog_sink_consecutive_failures", sink: "down") ?? 0) >= 7
                }
            )
            let logHead = try await database.scalar("SELECT size FROM authlog.log_head")
            #expect(
                try await Self.wait {
                    text = try await Self.metrics(server)
                    return Self.metric(text, "authlog_sink_lag_events", sink: "down") == logHead
                },
                "lag \(Self.metric(text, "authlog_sink_lag_events", sink: "down") ?? -1), head \(logHead)"
            )
            #expect(Self.metric(text, "authlog_sink_delivered_position", sink: "down") == 0)
            #expect(Self.metric(text, "authlog_sink_lease_held", sink: "down") == 1)
            #expect((Self.metric(text, "authlog_sink_delivery_failures_total", sink: "down") ?? 0) >= 7)
            #expect(try await Self.events("audit.sink_failing", in: database).count == 1, "one event per episode")

            down.failNext(0)
            #expect(try await Self.wait { try await !Self.events("audit.sink_recovered", in: database).isEmpty })
            let all = try await Self.waitForEverything(down, database)
            #expect(Set(down.positions) == Set(1...all), "everything it missed arrived, its own episode included")
            #expect(down.batches.flatMap(\.lines).contains { $0["type"] == .string("audit.sink_failing") })
            let recovered = try await Self.events("audit.sink_recovered", in: database)
            #expect(recovered.count == 1)
            let end = try #require(recovered.first)
            #expect(end.outcome == "success" && end.stream == "audit-sinks" && end.data["sink"] == .string("down"))
            #expect(end.data["failing_since"] == .string(since))
            #expect((end.data["failures"]?.integerValue ?? 0) >= 7)
            #expect((end.data["delivered_through"]?.integerValue ?? 0) >= 7)
            #expect(
                try await Self.wait {
                    Self.metric(try await Self.metrics(server), "authlog_sink_consecutive_failures", sink: "down") == 0
                }
            )
            #expect(try await Self.events("audit.sink_failing", in: database).count == 1)
        }

        /// A process started while another's lease on a sink still runs (the other was killed) delivers nothing,
        /// but its /metrics show the sink as the database has it: the position acknowledged, the true lag, the
        /// failures in a row, and that it is not the one delivering. It takes over once the lease lapses.
        @Test func aProcessWaitingForTheLeaseShowsTheSinksTrueState() async throws {
            let database = try await TestDatabase.make()
            let receiver = try await SinkReceiver.start(secret: Self.secret)
            defer { Task { await receiver.stop() } }
            // A 10 s timeout: the lease lasts 25 s after its last renewal.
            let configuration = JSONValue.members([
                "sinks": .array([Self.sink("siem", url: receiver.url, timeoutSeconds: 10)])
            ])
            let first = try await ServeProcess.start(database: database, configuration: configuration)
            for index in 0..<3 { try await Self.signIn(first, "early-\(index)") }
            let delivered = try await Self.waitForEverything(receiver, database)
            receiver.failNext(1_000_000)
            for index in 0..<3 { try await Self.signIn(first, "late-\(index)") }
            #expect(
                try await Self.wait {
                    try await database.scalar("SELECT consecutive_failures FROM authlog.sink_cursors") >= 1
                }
            )
            first.kill()
            let killedAt = ContinuousClock.now
            let head = try await database.scalar("SELECT size FROM authlog.log_head")
            #expect(head > delivered)
            let second = try await ServeProcess.start(database: database, configuration: configuration)
            defer { second.stop() }
            var text = ""
            #expect(
                try await Self.wait(.seconds(5)) {
                    text = try await Self.metrics(second)
                    return Self.metric(text, "authlog_sink_lag_events", sink: "siem") == head - delivered
                },
                "\(text)"
            )
            #expect(Self.metric(text, "authlog_sink_delivered_position", sink: "siem") == delivered)
            #expect(Self.metric(text, "authlog_sink_lease_held", sink: "siem") == 0)
            let failures = try await database.scalar("SELECT consecutive_failures FROM authlog.sink_cursors")
            #expect(Self.metric(text, "authlog_sink_consecutive_failures", sink: "siem") == failures)
            #expect(
                try await database.scalar(
                    "SELECT count(*) FROM authlog.sink_cursors WHERE lease_until > clock_timestamp()"
                ) == 1,
                "the killed process's lease still runs (\(ContinuousClock.now - killedAt) after the kill)"
            )
            #expect(Self.metric(text, "authlog_sink_events_delivered_total", sink: "siem") == 0)

            receiver.failNext(0)
            let all = try await Self.waitForEverything(receiver, database)
            #expect(Set(receiver.positions) == Set(1...all), "the new process took over once the lease lapsed")
            #expect(
                try await Self.wait(.seconds(5)) {
                    Self.metric(try await Self.metrics(second), "authlog_sink_lease_held", sink: "siem") == 1
                }
            )
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
