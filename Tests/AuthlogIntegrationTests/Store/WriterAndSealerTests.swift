import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import Testing

@Suite(.enabled(if: TestDatabase.isAvailable), .serialized)
struct WriterAndSealerTests {
    @Test func thirtyTwoConcurrentAppendersGetGaplessPositions() async throws {
        let database = try await TestDatabase.make()
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo, maximumConnections: 6))
        let tail = Task { try await self.tailByPosition(database, until: 32_000) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for appender in 0..<32 {
                group.addTask {
                    for _ in 0..<1000 {
                        let result = try await store.append(failedSignin(provider: "p\(appender)"))
                        #expect(result.events.count == 1 && !result.events[0].wasAlreadyStored)
                    }
                }
            }
            try await group.waitForAll()
        }
        try await store.sealPending()
        #expect(try await positions(in: database) == Array(1...32_000))
        #expect(
            try await tail.value == Array(1...32_000),
            "a reader tailing by position saw every event once, in order"
        )
        #expect(try await verify(database) == intact(database))
        let versions = try await database.scalar(
            "SELECT count(*) FROM (SELECT stream, max(stream_version) AS v, count(*) AS n FROM authlog.events GROUP BY stream) s WHERE v = n AND n = 1000"
        )
        #expect(versions == 32, "every stream's versions are 1…1000")
    }

    @Test func aWrongExpectedVersionFailsOnlyItsOwnCommand() async throws {
        let database = try await TestDatabase.make()
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo))
        try await store.append(failedSignin(provider: "apple"))
        let stream = StreamName(category: "signin", id: "apple")
        let results = await store.appendTogether([
            AppendCommand(failedSignin(provider: "google")),
            AppendCommand(failedSignin(provider: "apple"), expecting: .exactly(5)),
            AppendCommand(failedSignin(provider: "apple"), expecting: .exactly(1)),
            AppendCommand(failedSignin(provider: "kakao"), expecting: .noStream),
        ])
        #expect(try results[0].get().events.count == 1)
        guard case .failure(let error) = results[1] else {
            Issue.record("the command expecting version 5 must fail")
            return
        }
        #expect(error.code == .wrongExpectedVersion)
        #expect(error.description.contains("stream \(stream) is at version 1, expected"))
        #expect(try results[2].get().events.first?.streamVersion == 2)
        #expect(try results[3].get().events.first?.streamVersion == 1)
        try await store.sealPending()
        #expect(try await positions(in: database) == [1, 2, 3, 4])
        #expect(try await verify(database) == intact(database))
    }

    @Test func theSameEventIDIsStoredOnceAndAnswersWithTheFirstPosition() async throws {
        let database = try await TestDatabase.make()
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo))
        let event = failedSignin()
        let first = try await store.appendSealed([AppendCommand(event)])[0].get()
        try await store.append(failedSignin())
        let again = try await store.appendSealed([AppendCommand(event)])[0].get()
        #expect(first.events[0].wasAlreadyStored == false)
        #expect(first.events[0].position == 1)
        #expect(again.events[0].position == first.events[0].position)
        #expect(again.events[0].wasAlreadyStored)
        try await store.sealPending()
        #expect(try await positions(in: database) == [1, 2])
    }

    @Test func anInvalidEventIsRefusedBeforeTheDatabase() async throws {
        let database = try await TestDatabase.make()
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo))
        var event = failedSignin()
        event.provider = nil
        let error = await #expect(throws: InvalidEvent.self) { try await store.append(event) }
        #expect(error?.eventIndex == 0)
        #expect(error?.message.contains("provider is required for signin.failed") == true)
        #expect(try await positions(in: database).isEmpty)
    }

    @Test func appendsResumeAfterTheServerDropsEveryConnection() async throws {
        let database = try await TestDatabase.make()
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo, maximumConnections: 2))
        try await store.append(failedSignin())
        let admin = try await database.connect()
        try await admin.query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = \(database.name) AND pid <> pg_backend_pid()"
        )
        try await Task.sleep(for: .milliseconds(200))
        let result = try await store.appendSealed([AppendCommand(failedSignin())])[0].get()
        #expect(result.lastPosition == 2)
        #expect(try await verify(database) == intact(database))
    }

    /// Two stores (two writers, two sealers) race commands with expected versions on the same streams: every
    /// loser fails alone with a version conflict, every winner lands, and each stream's versions are 1…n.
    @Test func concurrentWritersMeetInTheStreamVersionIndex() async throws {
        let database = try await TestDatabase.make()
        let stores = (0..<2).map { _ in
            PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo, maximumConnections: 4))
        }
        let outcomes = try await withThrowingTaskGroup(of: (won: Int, lost: Int).self) { group in
            for task in 0..<16 {
                group.addTask {
                    let store = stores[task % 2]
                    var won = 0
                    var lost = 0
                    for round in 0..<50 {
                        let provider = "shared\(round % 4)"
                        let stream = StreamName(category: "signin", id: provider)
                        let version = try await database.scalar(
                            "SELECT coalesce(max(stream_version), 0) FROM authlog.event_records WHERE stream = \(stream.rawValue)"
                        )
                        do {
                            try await store.append(
                                failedSignin(provider: provider),
                                expecting: .exactly(Int32(version))
                            )
                            won += 1
                        } catch is WrongExpectedVersion {
                            lost += 1
                        }
                    }
                    return (won, lost)
                }
            }
            var total = (won: 0, lost: 0)
            for try await outcome in group { total = (total.won + outcome.won, total.lost + outcome.lost) }
            return total
        }
        #expect(outcomes.won + outcomes.lost == 800)
        #expect(outcomes.lost > 0, "sixteen tasks on four streams must collide")
        for store in stores { try await store.sealPending() }
        #expect(try await positions(in: database) == Array(1...Int64(outcomes.won)))
        let gapless = try await database.scalar(
            "SELECT count(*) FROM (SELECT stream, max(stream_version) AS v, count(*) AS n FROM authlog.events GROUP BY stream) s WHERE v = n"
        )
        #expect(gapless == 4)
        #expect(try await verify(database) == intact(database))
    }

    /// Events committed while no sealer can run (the head is locked elsewhere) wait in the queue, have no
    /// position and are invisible to readers; a sealer of another process seals them afterwards.
    @Test func committedEventsWaitForTheSealerAndAnotherProcessSealsThem() async throws {
        let database = try await TestDatabase.make()
        let blocker = try await database.connect()
        try await blocker.execute("BEGIN; SELECT * FROM authlog.log_head FOR UPDATE")
        let writer = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo, maximumConnections: 3))
        let results = await writer.appendTogether((0..<10).map { _ in AppendCommand(failedSignin()) })
        #expect(results.allSatisfy { (try? $0.get())?.events.first?.position == nil })
        #expect(try await database.scalar("SELECT count(*) FROM authlog.unsealed_events") == 10)
        #expect(try await positions(in: database).isEmpty, "readers see sealed events only")
        try await blocker.execute("ROLLBACK")
        let other = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo, maximumConnections: 1))
        try await other.sealPending()
        #expect(try await positions(in: database) == Array(1...10))
        #expect(try await database.scalar("SELECT count(*) FROM authlog.unsealed_events") == 0)
        #expect(try await verify(database) == intact(database))
    }

    /// Reads the log by position until `count` events were seen, as an export would; returns the positions.
    private func tailByPosition(_ database: TestDatabase, until count: Int64) async throws -> [Int64] {
        let connection = try await database.connect()
        var seen: [Int64] = []
        var cursor: Int64 = 0
        while cursor < count {
            let page = try await EventReader().events(after: cursor, limit: 500, on: connection)
            for event in page {
                #expect(event.position == cursor + 1, "no gap and nothing inserted below the cursor")
                cursor = event.position
                seen.append(event.position)
            }
            if page.isEmpty { try await Task.sleep(for: .milliseconds(2)) }
        }
        return seen
    }
}
