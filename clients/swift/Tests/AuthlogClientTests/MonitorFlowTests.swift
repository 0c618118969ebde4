import AuthlogClient
import AuthlogTransparency
import Foundation
import Testing

/// The monitor against ``FakeAuthlog`` (a real HTTP server on 127.0.0.1 whose checkpoints are signed by test
/// keys): receipts verified in batches, pending until checkpointed or witnessed, and refused with the exact
/// reason when they are not this user's own action or the server does not give them.
@Suite(.timeLimit(.minutes(1)))
struct MonitorFlowTests {
    @Test func theEventsOfASignInAreVerifiedInOneBatchAndTheCheckpointIsKept() async throws {
        let server = try FakeAuthlog()
        let client = try MonitorHarness.client(server)
        let monitor = try MonitorHarness.monitor(client)
        let events = client.monitorEvents()
        let result = try await client.signIn(with: .dev(subject: "ada"))
        #expect(result.eventIDs.count == 2)
        let states = await MonitorHarness.settled(monitor, result.eventIDs)
        let receipts = states.compactMap(\.verified)
        #expect(receipts.map(\.eventID) == result.eventIDs)
        #expect(receipts.map(\.type) == ["signin.succeeded", "token.issued"])
        #expect(receipts.map(\.position) == [1, 2])
        #expect(receipts.allSatisfy { $0.witnessedBy == ["a"] && $0.checkpointSize == 2 })
        #expect(receipts.allSatisfy { $0.sessionID == result.tokens.sessionID })
        // One request for both, and the checkpoint kept.
        #expect(server.count("/v1/log/receipts") == 1)
        #expect(server.receiptRequests.first?["ids"] == result.eventIDs.joined(separator: ","))
        #expect(server.receiptRequests.first?["event_form"] == "text", "the events as text, which gzip sees into")
        #expect(await monitor.state().keptCheckpoint?.size == 2)
        let kept = await firstEvent(of: events) {
            if case .checkpointKept(let checkpoint) = $0 { checkpoint } else { nil }
        }
        #expect(kept?.size == 2)
        // Nothing waits: the background task asks for nothing more.
        try await Task.sleep(for: .milliseconds(300))
        #expect(server.count("/v1/log/receipts") == 1)
    }

    /// A server that answers `event` in base64 whatever `event_form` asks (one from before the text form).
    @Test func aServerThatAnswersBase64IsReadAsWell() async throws {
        let server = try FakeAuthlog()
        server.set(base64EventsOnly: true)
        let client = try MonitorHarness.client(server)
        let monitor = try MonitorHarness.monitor(client)
        let result = try await client.signIn(with: .dev(subject: "ada"))
        let states = await MonitorHarness.settled(monitor, result.eventIDs)
        #expect(states.compactMap(\.verified).map(\.type) == ["signin.succeeded", "token.issued"], "\(states)")
    }

    @Test func aRefreshNamesItsEventAndTheNextBatchAsksFromTheKeptSize() async throws {
        let server = try FakeAuthlog()
        let client = try MonitorHarness.client(server)
        let monitor = try MonitorHarness.monitor(client)
        let signIn = try await client.signIn(with: .dev(subject: "ada"))
        _ = await MonitorHarness.settled(monitor, signIn.eventIDs)
        try await client.refresh()
        #expect(await eventually { await monitor.receiptState(of: signIn.eventIDs[0]).verified != nil })
        #expect(await eventually { server.count("/v1/log/receipts") == 2 })
        // The refresh's event, proven with the consistency proof from the kept size 2 to 3.
        #expect(server.receiptRequests.last?["from"] == "2")
        #expect(await eventually { await monitor.state().keptCheckpoint?.size == 3 })
        #expect(await monitor.state().alarm == nil)
    }

    @Test func aRefreshWhoseEventIsOfAnotherTypeIsRefused() async throws {
        let server = try FakeAuthlog()
        let client = try MonitorHarness.client(server)
        let monitor = try MonitorHarness.monitor(client)
        let signIn = try await client.signIn(with: .dev(subject: "ada"))
        _ = await MonitorHarness.settled(monitor, signIn.eventIDs)
        // The refresh's answer names an event of this user and session, proven in the log, but not a rotation.
        server.set(refreshEventType: "signin.succeeded")
        try await client.refresh()
        let named = server.lastNamedEventIDs
        #expect(named.count == 1)
        let states = await MonitorHarness.settled(monitor, named)
        #expect(
            states == [
                .refused(
                    .unexpectedType(expected: ["token.refresh_replayed", "token.refreshed"], found: "signin.succeeded")
                )
            ]
        )
    }

    @Test func aReceiptNotCheckpointedIsPendingAndVerifiedAfterRetryAfter() async throws {
        let server = try FakeAuthlog()
        server.set(pendingAnswers: 1)
        // The longest Retry-After honoured is the longest back-off (200 ms in these tests).
        let client = try MonitorHarness.client(server) { $0.maximumBackoff = .seconds(5) }
        let monitor = try MonitorHarness.monitor(client)
        let events = client.monitorEvents()
        let ids = try await client.signIn(with: .dev(subject: "ada")).eventIDs
        let pending = await firstEvent(of: events) { event -> PendingReason? in
            if case .receipt(_, .pending(let reason)) = event { reason } else { nil }
        }
        #expect(pending == .notCheckpointed)
        let states = await MonitorHarness.settled(monitor, ids)
        #expect(states.allSatisfy { $0.verified != nil })
        // The server said `Retry-After: 1`: the second request waited for it.
        let times = server.receiptRequestTimes
        #expect(times.count == 2)
        #expect(times.count == 2 && times[1] - times[0] >= .seconds(1))
    }

    @Test func aLogWithNoCheckpointYetLeavesEveryEventPending() async throws {
        let server = try FakeAuthlog()
        let client = try MonitorHarness.client(server) { $0.firstCheckDelay = .seconds(3_600) }
        let monitor = try MonitorHarness.monitor(client)
        let ids = try await client.signIn(with: .dev(subject: "ada")).eventIDs
        server.queue(rawAnswer: .json(409, ["error": "not_checkpointed"], headers: ["Retry-After": "60"]))
        try await monitor.checkNow()
        for id in ids { #expect(await monitor.receiptState(of: id) == .pending(.notCheckpointed)) }
        // Asked again, they settle.
        try await monitor.checkNow()
        for id in ids { #expect(await monitor.receiptState(of: id).verified != nil) }
    }

    @Test func aReceiptBelowQuorumIsPendingNotFailedAndVerifiedOnceCosigned() async throws {
        let server = try FakeAuthlog()
        server.set(uncosignedAnswers: 1)
        let client = try MonitorHarness.client(server)
        let monitor = try MonitorHarness.monitor(client)
        let events = client.monitorEvents()
        let ids = try await client.signIn(with: .dev(subject: "ada")).eventIDs
        let pending = await firstEvent(of: events) { event -> PendingReason? in
            if case .receipt(_, .pending(let reason)) = event { reason } else { nil }
        }
        #expect(pending == .belowQuorum(cosigned: []))
        let states = await MonitorHarness.settled(monitor, ids)
        #expect(states.compactMap(\.verified).map(\.witnessedBy) == [["a"], ["a"]])
    }

    @Test func aWitnessThatIsNotPinnedDoesNotCount() async throws {
        let server = try FakeAuthlog()
        server.set(cosigners: [server.keys.unknownWitness])
        let client = try MonitorHarness.client(server)
        let monitor = try MonitorHarness.monitor(client)
        let ids = try await client.signIn(with: .dev(subject: "ada")).eventIDs
        #expect(await eventually { await monitor.receiptState(of: ids[0]) == .pending(.belowQuorum(cosigned: [])) })
        // Still inclusion-proven: the checkpoint is kept, the receipt waits for the quorum.
        #expect(await monitor.state().keptCheckpoint?.size == 2)
    }

    @Test func anotherUsersEventGivenByTheServerIsRefusedAsAnotherUsers() async throws {
        let server = try FakeAuthlog()
        server.set(leakOtherUsers: true)
        let intruder = TestEvent(userID: UUID().uuidString.lowercased(), sessionID: UUID().uuidString.lowercased())
        server.append(intruder)
        server.set(extraEventIDs: [intruder.id])
        let client = try MonitorHarness.client(server)
        let monitor = try MonitorHarness.monitor(client)
        let result = try await client.signIn(with: .dev(subject: "ada"))
        // The answer named the sign-in's two events and the intruder.
        #expect(result.eventIDs.last == intruder.id)
        let states = await MonitorHarness.settled(monitor, result.eventIDs)
        #expect(states[2] == .refused(.anotherUser(expected: result.tokens.userID, found: intruder.userID)))
        #expect(states[0..<2].allSatisfy { $0.verified != nil })
    }

    @Test func anotherUsersEventTheServerDoesNotGiveIsRefusedAsNotFoundAfterTheTries() async throws {
        let server = try FakeAuthlog()
        let intruder = TestEvent(userID: UUID().uuidString.lowercased(), sessionID: UUID().uuidString.lowercased())
        server.append(intruder)
        server.set(extraEventIDs: [intruder.id])
        let client = try MonitorHarness.client(server) { $0.notFoundTries = 2 }
        let monitor = try MonitorHarness.monitor(client)
        _ = try await client.signIn(with: .dev(subject: "ada"))
        let states = await MonitorHarness.settled(monitor, [intruder.id])
        #expect(states == [.refused(.notFound(tries: 2))])
        #expect(server.count("/v1/log/receipts") == 2)
    }

    @Test func anEventOfAnotherSessionOrOutsideTheWindowIsRefused() async throws {
        let server = try FakeAuthlog()
        server.set(leakOtherUsers: true)
        let client = try MonitorHarness.client(server)
        let monitor = try MonitorHarness.monitor(client)
        let result = try await client.signIn(with: .dev(subject: "ada"))
        _ = await MonitorHarness.settled(monitor, result.eventIDs)
        // Two more events of this user, named by the next sign-in's answer: one of a session the answer was
        // not for, one an hour old.
        let user = result.tokens.userID
        let otherSession = TestEvent(
            type: "session.revoked",
            userID: user,
            sessionID: "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c"
        )
        let old = TestEvent(type: "user.registered", userID: user, occurredAt: Date().addingTimeInterval(-3_600))
        server.append(otherSession)
        server.append(old)
        server.set(extraEventIDs: [otherSession.id, old.id])
        let second = try await client.signIn(with: .dev(subject: "ada"))
        let states = await MonitorHarness.settled(monitor, [otherSession.id, old.id])
        #expect(
            states[0]
                == .refused(.anotherSession(expected: [second.tokens.sessionID], found: otherSession.sessionID ?? ""))
        )
        guard case .refused(.outsideTimeWindow(let occurredAt, _)) = states[1] else {
            Issue.record("expected outside the time window, got \(states[1])")
            return
        }
        #expect(abs(occurredAt.timeIntervalSince(old.occurredAt)) < 0.001)
    }

    @Test func theActivityShowsEachEntrysStateAndTheMonitorChecksEntriesItHasNotSeen() async throws {
        let server = try FakeAuthlog()
        let first = try MonitorHarness.client(server)
        _ = try await first.signIn(with: .dev(subject: "ada"))
        // Another device of the same user: it never saw the first device's events.
        let client = try MonitorHarness.client(server) { $0.firstCheckDelay = .seconds(3_600) }
        let monitor = try MonitorHarness.monitor(client)
        let own = try await client.signIn(with: .dev(subject: "ada")).eventIDs
        let page = try await client.checkedActivity()
        #expect(page.entries.count == 4)
        #expect(page.entries.map(\.entry.position) == [4, 3, 2, 1])
        // Its own events were queued for an hour; the others' are asked for now, and the own ones ride along in
        // the same request.
        #expect(page.entries.filter { own.contains($0.id) }.allSatisfy { $0.receipt == .queued })
        let others = page.entries.map(\.id).filter { !own.contains($0) }
        let states = await MonitorHarness.settled(monitor, others + own)
        #expect(states.compactMap(\.verified).map(\.position) == [2, 1, 3, 4])
        #expect(server.receiptRequests.filter { $0["ids"]?.contains(own[0]) == true }.count == 1)
        let again = try await client.checkedActivity()
        #expect(again.entries.map { $0.receipt.verified?.position } == [4, 3, 2, 1])
    }

    @Test func theMonitorIsOffWithoutPinsAndTheActivitySaysNotChecked() async throws {
        let server = try FakeAuthlog()
        let client = AuthlogClient(baseURL: server.baseURL, configuration: .init(refreshBeforeExpiry: nil))
        #expect(client.monitor == nil)
        _ = try await client.signIn(with: .dev(subject: "ada"))
        let page = try await client.checkedActivity()
        #expect(page.entries.map(\.receipt) == [.notChecked, .notChecked])
        var events = client.monitorEvents().makeAsyncIterator()
        #expect(await events.next() == nil)
        try await Task.sleep(for: .milliseconds(100))
        #expect(server.count("/v1/log/receipts") == 0)
    }

    @Test func aKeptSizeRetentionDroppedIsReplacedByTheNextWitnessedCheckpoint() async throws {
        let server = try FakeAuthlog()
        let client = try MonitorHarness.client(server)
        let monitor = try MonitorHarness.monitor(client)
        let events = client.monitorEvents()
        _ = await MonitorHarness.settled(monitor, try await client.signIn(with: .dev(subject: "ada")).eventIDs)
        #expect(await monitor.state().keptCheckpoint?.size == 2)
        // Retention drops positions 1…4 of a log of 5; the next checkpoint is not cosigned at first.
        for _ in 0..<3 { server.append(TestEvent(userID: UUID().uuidString.lowercased())) }
        server.set(droppedBelow: 5)
        server.set(uncosignedAnswers: 1)
        try await client.refresh()
        let dropped = await firstEvent(of: events) { $0 == .error(.http(status: 410, code: "dropped")) ? true : nil }
        #expect(dropped == true)
        // Asked again without `from`: the unwitnessed tree of 6 is not kept, the witnessed one is.
        #expect(await eventually { await monitor.state().keptCheckpoint?.size == 6 })
        let froms = server.receiptRequests.map { $0["from"] }
        #expect(froms.suffix(3) == ["2", nil, nil])
        #expect(await monitor.state().alarm == nil)
    }

    /// A kept checkpoint no witness cosigned (the log may have shown this device alone a fork) is not left for a
    /// witnessed one after a 410: nothing proves the witnessed tree extends it, so the device keeps it.
    @Test func anUnwitnessedKeptCheckpointIsNotReplacedAfterA410() async throws {
        let server = try FakeAuthlog()
        let client = try MonitorHarness.client(server)
        let monitor = try MonitorHarness.monitor(client)
        let events = client.monitorEvents()
        // Every answer until the drop shows the tree uncosigned: no witness ever vouched for the kept one.
        server.set(uncosignedAnswers: 1_000)
        _ = await MonitorHarness.settled(monitor, try await client.signIn(with: .dev(subject: "ada")).eventIDs)
        #expect(await monitor.state().keptCheckpoint?.size == 2)
        for _ in 0..<3 { server.append(TestEvent(userID: UUID().uuidString.lowercased())) }
        server.set(droppedBelow: 5)
        server.set(uncosignedAnswers: 0)
        try await client.refresh()
        let dropped = await firstEvent(of: events) { $0 == .error(.http(status: 410, code: "dropped")) ? true : nil }
        #expect(dropped == true)
        // Asked again without `from`: the witnessed tree of 6 is shown, and not kept.
        #expect(await eventually { server.receiptRequests.contains { $0["from"] == nil } })
        try await Task.sleep(for: .milliseconds(200))
        #expect(await monitor.state().keptCheckpoint?.size == 2)
    }

    /// A checkpoint first shown before the witnesses cosigned it, then shown again cosigned: the cosigned note is
    /// kept, so that after a 410 the next witnessed checkpoint is taken (re-anchoring is not blocked for good).
    @Test func aKeptCheckpointShownAgainCosignedAnchorsAfterA410() async throws {
        let server = try FakeAuthlog()
        let client = try MonitorHarness.client(server)
        let monitor = try MonitorHarness.monitor(client)
        server.set(uncosignedAnswers: 1)
        _ = await MonitorHarness.settled(monitor, try await client.signIn(with: .dev(subject: "ada")).eventIDs)
        #expect(await monitor.state().keptCheckpoint?.size == 2)
        for _ in 0..<3 { server.append(TestEvent(userID: UUID().uuidString.lowercased())) }
        server.set(droppedBelow: 5)
        try await client.refresh()
        #expect(await eventually { await monitor.state().keptCheckpoint?.size == 6 })
        #expect(await monitor.state().alarm == nil)
    }

    @Test func refreshSamplingChecksOneRefreshInN() async throws {
        for (sampling, queued) in [(1, 6), (0, 2)] {
            let server = try FakeAuthlog()
            let client = try MonitorHarness.client(server) {
                $0.refreshSampling = sampling
                $0.firstCheckDelay = .seconds(3_600)
            }
            let monitor = try MonitorHarness.monitor(client)
            _ = try await client.signIn(with: .dev(subject: "ada"))
            for _ in 0..<4 { try await client.refresh() }
            #expect(await monitor.state().queued == queued, "refresh sampling \(sampling)")
        }
    }

    @Test func aFullQueueTakesNoMoreIdsAndSaysSo() async throws {
        let server = try FakeAuthlog()
        let client = try MonitorHarness.client(server) {
            $0.maximumQueued = 2
            $0.firstCheckDelay = .seconds(3_600)
        }
        let monitor = try MonitorHarness.monitor(client)
        let events = client.monitorEvents()
        _ = try await client.signIn(with: .dev(subject: "ada"))
        #expect(await monitor.state().queued == 2)
        try await client.refresh()
        let dropped = await firstEvent(of: events) { if case .queueFull(let count) = $0 { count } else { nil } }
        #expect(dropped == 1)
        #expect(await monitor.state().queued == 2)
        #expect(server.count("/v1/log/receipts") == 0, "nothing is due for an hour")
    }
}

/// A checkpoint store that cannot be read until it is unlocked (a file protected until the device's first
/// unlock): nothing is judged or written meanwhile, and once it reads, its kept checkpoint is the one held to.
struct UnreadableCheckpointStoreTests {
    actor LockedStore: CheckpointStore {
        private var record: MonitorRecord
        private var locked = true
        private(set) var saves = 0

        init(_ record: MonitorRecord) { self.record = record }

        func unlock() { self.locked = false }

        func load() throws -> MonitorRecord {
            if self.locked { throw CocoaError(.fileReadNoPermission) }
            return self.record
        }

        func save(_ record: MonitorRecord) {
            self.saves += 1
            self.record = record
        }

        var kept: String? { self.record.checkpoint }
    }

    @Test func nothingIsJudgedOrWrittenUntilTheStoreReadsAndThenItsCheckpointHolds() async throws {
        let server = try FakeAuthlog()
        let earlier = InMemoryCheckpointStore()
        let first = try MonitorHarness.client(server, store: earlier)
        let firstMonitor = try MonitorHarness.monitor(first)
        _ = await MonitorHarness.settled(firstMonitor, try await first.signIn(with: .dev(subject: "ada")).eventIDs)
        let record = await earlier.load()
        let keptNote = try #require(record.checkpoint)

        let store = LockedStore(record)
        let client = try MonitorHarness.client(server, store: store)
        let monitor = try MonitorHarness.monitor(client)
        let asked = server.count("/v1/log/receipts")
        let ids = try await client.signIn(with: .dev(subject: "ada")).eventIDs
        try await Task.sleep(for: .milliseconds(400))
        #expect(await store.saves == 0, "the unread store is not overwritten")
        #expect(server.count("/v1/log/receipts") == asked, "nothing is judged against no checkpoint")
        #expect(await store.kept == keptNote)
        await #expect(throws: MonitorError.self) { try await monitor.checkNow() }

        await store.unlock()
        let states = await MonitorHarness.settled(monitor, ids)
        #expect(states.allSatisfy { if case .verified = $0 { true } else { false } }, "\(states)")
        let state = await monitor.state()
        #expect(state.keptCheckpoint != nil && state.alarm == nil)
    }
}
