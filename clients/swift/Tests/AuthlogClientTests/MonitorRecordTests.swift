import AuthlogTransparency
import Foundation
import Testing

@testable import AuthlogClient

/// The events waiting for their receipt are in the monitor's record: an app killed and started again (a new client
/// on the same files) checks them, pending ones at their next try; the record's queue is bounded, and a file store
/// never writes a record it could not read back.
@Suite(.timeLimit(.minutes(1)))
struct MonitorRecordTests {
    /// A folder for one test's token and checkpoint files.
    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("monitor-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// A client of `server` on the token file and the checkpoint file beside it in `folder`: one launch of the app.
    static func launch(
        _ server: FakeAuthlog,
        in folder: URL,
        configure: (inout LogMonitor.Configuration) -> Void = { _ in }
    ) throws -> (AuthlogClient, LogMonitor) {
        let tokens = FileTokenStore(url: folder.appendingPathComponent("tokens.json"))
        let client = try MonitorHarness.client(
            server,
            store: FileCheckpointStore(beside: tokens),
            tokenStore: tokens,
            configure: configure
        )
        return (client, try MonitorHarness.monitor(client))
    }

    @Test func aQueuedEventIsCheckedByTheNextLaunch() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try FakeAuthlog()
        weak var firstMonitor: LogMonitor?
        var ids: [String] = []
        do {
            // The first check would be in a minute: the app is gone before that.
            let (client, monitor) = try Self.launch(server, in: folder) { $0.firstCheckDelay = .seconds(60) }
            ids = try await client.signIn(with: .dev(subject: "ada")).eventIDs
            #expect(await monitor.state().queued == 2)
            firstMonitor = monitor
        }
        #expect(await eventually { firstMonitor == nil })
        #expect(server.count("/v1/log/receipts") == 0)
        // The next launch asks for them on its own (its longest wait is 200 ms here) and verifies them.
        let (_, monitor) = try Self.launch(server, in: folder)
        let states = await MonitorHarness.settled(monitor, ids)
        #expect(states.compactMap(\.verified).map(\.eventID) == ids)
        #expect(server.count("/v1/log/receipts") == 1)
        #expect(await monitor.state().queued == 0)
    }

    @Test func aPendingEventKeepsItsNextTryAcrossLaunches() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try FakeAuthlog()
        // The first answer says every event is pending, `Retry-After: 1`.
        server.set(pendingAnswers: 1)
        let configure: (inout LogMonitor.Configuration) -> Void = { $0.maximumBackoff = .seconds(5) }
        weak var firstMonitor: LogMonitor?
        var ids: [String] = []
        do {
            let (client, monitor) = try Self.launch(server, in: folder, configure: configure)
            ids = try await client.signIn(with: .dev(subject: "ada")).eventIDs
            #expect(await eventually { await monitor.receiptState(of: ids[0]) == .pending(.notCheckpointed) })
            firstMonitor = monitor
        }
        #expect(await eventually { firstMonitor == nil })
        let (_, monitor) = try Self.launch(server, in: folder, configure: configure)
        // Before its next try the event is pending as it was; then it is asked for again and verified.
        #expect(await monitor.receiptState(of: ids[0]) == .pending(.notCheckpointed))
        let states = await MonitorHarness.settled(monitor, ids)
        #expect(states.allSatisfy { $0.verified != nil })
        let times = server.receiptRequestTimes
        #expect(times.count == 2)
        #expect(times.count == 2 && times[1] - times[0] >= .seconds(1), "asked again before the Retry-After")
    }

    static func item(_ index: Int, user: String = "u") -> (String, EventExpectation) {
        let id = String(format: "00000000-0000-4000-8000-%012d", index)
        let requestedAt = Date(timeIntervalSince1970: 1_795_600_000)
        return (
            id, EventExpectation(userID: user, sessions: .only(["s"]), requestedAt: requestedAt, listedPosition: nil)
        )
    }

    @Test func theRecordsQueueIsBoundedAndComesBackAsItWas() throws {
        var queue = MonitorQueue(maximumQueued: 100, maximumOutcomes: 10)
        let now = ContinuousClock.now
        let wall = Date()
        for index in 0..<20 {
            let (id, expectation) = Self.item(index)
            _ = queue.insert(id, expectation: expectation, due: now + .seconds(index))
        }
        var pending = try #require(queue.item(Self.item(1).0))
        pending.state = .pending(.belowQuorum(cosigned: ["a"]))
        pending.notFoundTries = 2
        queue.update(pending)
        var retrying = try #require(queue.item(Self.item(2).0))
        retrying.state = .pending(.retrying(.transport))
        queue.update(retrying)
        // Everything fits in the default budget; a small one keeps the oldest.
        let all = queue.stored(now: now, wallNow: wall)
        #expect(all.count == 20)
        let few = queue.stored(now: now, wallNow: wall, budget: 1_000)
        #expect(!few.isEmpty && few.count < 20)
        #expect(few.map(\.eventID) == all.prefix(few.count).map(\.eventID))
        let json = try JSONEncoder().encode(MonitorRecord(queue: all))
        let record = try JSONDecoder().decode(MonitorRecord.self, from: json)
        // A smaller queue takes what its bound lets, each due at its next try (no later than `latest`).
        var next = MonitorQueue(maximumQueued: 5, maximumOutcomes: 10)
        let later = ContinuousClock.now
        #expect(next.restore(record.queue, now: later, wallNow: wall, latest: .seconds(3)) == 5)
        #expect(next.count == 5)
        let first = try #require(next.item(Self.item(0).0))
        #expect(first.state == .queued && first.expectation == Self.item(0).1)
        #expect(first.due - later < .milliseconds(1))
        let second = try #require(next.item(Self.item(1).0))
        #expect(second.state == .pending(.belowQuorum(cosigned: ["a"])) && second.notFoundTries == 2)
        #expect(abs((second.due - later - .seconds(1)).timeInterval) < 0.01)
        #expect(try #require(next.item(Self.item(2).0)).state == .queued, "a retry comes back queued")
        #expect(try #require(next.item(Self.item(4).0)).due - later == .seconds(3), "no later than `latest`")
    }

    @Test func aRecordWithoutAQueueOrWithABadIdReadsAndSkipsIt() throws {
        let old = try JSONDecoder().decode(MonitorRecord.self, from: Data(#"{"checkpoint": "note"}"#.utf8))
        #expect(old == MonitorRecord(checkpoint: "note"))
        var queue = MonitorQueue(maximumQueued: 5, maximumOutcomes: 5)
        var event = MonitorRecord.QueuedEvent(
            MonitorQueue.Item(id: "x", expectation: Self.item(0).1, state: .queued, due: .now),
            now: .now,
            wallNow: Date()
        )
        event.eventID = "not an event id"
        #expect(queue.restore([event], now: .now, wallNow: Date(), latest: .seconds(1)) == 0)
    }

    @Test func aFileStoreNeverWritesARecordItCouldNotReadBack() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = FileCheckpointStore(url: folder.appendingPathComponent("monitor.json"))
        try await store.save(MonitorRecord(checkpoint: "kept"))
        let huge = MonitorRecord(checkpoint: String(repeating: "a", count: FileCheckpointStore.maximumBytes))
        await #expect(throws: MonitorError.self) { try await store.save(huge) }
        #expect(try await store.load() == MonitorRecord(checkpoint: "kept"))
    }
}
