import AuthlogCore
import AuthlogStore
import AuthlogTesting
import Testing

@Suite(.enabled(if: TestDatabase.isAvailable), .serialized)
struct SequencerTests {
    @Test func thirtyTwoConcurrentAppendersGetGaplessPositions() async throws {
        let database = try await TestDatabase.make()
        let store = EventStore(pool: ConnectionPool(conninfo: database.conninfo, maximumConnections: 4))
        try await withThrowingTaskGroup(of: [Int64].self) { group in
            for appender in 0..<32 {
                group.addTask {
                    var acknowledged: [Int64] = []
                    for _ in 0..<1000 {
                        let result = try await store.append(failedSignin(provider: "p\(appender)"))
                        acknowledged.append(result.lastPosition)
                    }
                    return acknowledged
                }
            }
            var all: [Int64] = []
            for try await acknowledged in group {
                #expect(acknowledged == acknowledged.sorted(), "one appender's positions rise in commit order")
                all += acknowledged
            }
            #expect(all.sorted() == Array(1...32_000))
        }
        #expect(try await positions(in: database) == Array(1...32_000))
        #expect(try await verify(database) == .intact(events: 32_000, headHash: try await headHash(database)))
        let versions = try await database.scalar(
            "SELECT count(*) FROM (SELECT stream, max(stream_version) AS v, count(*) AS n FROM authlog.events GROUP BY stream) s WHERE v = n AND n = 1000"
        )
        #expect(versions == 32, "every stream's versions are 1…1000")
    }

    @Test func aWrongExpectedVersionFailsOnlyItsOwnCommand() async throws {
        let database = try await TestDatabase.make()
        let store = EventStore(pool: ConnectionPool(conninfo: database.conninfo))
        try await store.append(failedSignin(provider: "apple"))
        let stream = StreamName(category: "signin", id: "apple")
        let results = await store.appendTogether([
            AppendCommand(failedSignin(provider: "google")),
            AppendCommand(failedSignin(provider: "apple"), expecting: .exactly(5)),
            AppendCommand(failedSignin(provider: "apple"), expecting: .exactly(1)),
            AppendCommand(failedSignin(provider: "kakao"), expecting: .noStream),
        ])
        #expect(try results[0].get().lastPosition == 2)
        guard case .failure(let error) = results[1] else {
            Issue.record("the command expecting version 5 must fail")
            return
        }
        #expect(error.code == .wrongExpectedVersion)
        #expect(error.description.contains("stream \(stream) is at version 1, expected"))
        #expect(try results[2].get().events.first?.streamVersion == 2)
        #expect(try results[3].get().lastPosition == 4)
        #expect(try await positions(in: database) == [1, 2, 3, 4])
        #expect(try await verify(database) == .intact(events: 4, headHash: try await headHash(database)))
    }

    @Test func theSameEventIDIsStoredOnceAndAnswersWithTheFirstPosition() async throws {
        let database = try await TestDatabase.make()
        let store = EventStore(pool: ConnectionPool(conninfo: database.conninfo))
        let event = failedSignin()
        let first = try await store.append(event)
        try await store.append(failedSignin())
        let again = try await store.append(event)
        #expect(first.events[0].wasAlreadyStored == false)
        #expect(again.events[0].position == first.events[0].position)
        #expect(again.events[0].wasAlreadyStored)
        #expect(try await positions(in: database) == [1, 2])
    }

    @Test func anInvalidEventIsRefusedBeforeTheDatabase() async throws {
        let database = try await TestDatabase.make()
        let store = EventStore(pool: ConnectionPool(conninfo: database.conninfo))
        var event = failedSignin()
        event.provider = nil
        await #expect(throws: StoreError.self) { try await store.append(event) }
        #expect(try await positions(in: database).isEmpty)
    }

    @Test func appendsResumeAfterTheServerDropsEveryConnection() async throws {
        let database = try await TestDatabase.make()
        let store = EventStore(pool: ConnectionPool(conninfo: database.conninfo, maximumConnections: 2))
        try await store.append(failedSignin())
        let admin = try await database.connect()
        try await admin.query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = \(database.name) AND pid <> pg_backend_pid()"
        )
        try await Task.sleep(for: .milliseconds(200))
        let result = try await store.append(failedSignin())
        #expect(result.lastPosition == 2)
        #expect(try await verify(database) == .intact(events: 2, headHash: try await headHash(database)))
    }
}

func headHash(_ database: TestDatabase) async throws -> [UInt8] {
    try await EventReader().head(on: database.connect()).hash
}
