import AuthlogClient
import AuthlogTransparency
import Foundation
import Testing

/// The split-view alarm: a checkpoint that contradicts the kept one (same size and another root, a bigger tree
/// whose consistency proof fails or is missing, a smaller tree that is not a prefix) raises it with both notes;
/// the kept checkpoint is never replaced by an unproven one; the alarm and the kept checkpoint survive a new
/// client on the same file; the alarm is posted to the configured URL.
@Suite(.timeLimit(.minutes(1)))
struct SplitViewAlarmTests {
    /// A client of `server` signed in, its sign-in's receipts verified and the checkpoint of 2 kept; the
    /// server then has `more` more events of another user, sealed.
    static func signedIn(
        _ server: FakeAuthlog,
        more: Int = 0,
        store: any CheckpointStore = InMemoryCheckpointStore(),
        configure: (inout LogMonitor.Configuration) -> Void = { _ in }
    ) async throws -> (AuthlogClient, LogMonitor, [String]) {
        let client = try MonitorHarness.client(server, store: store, configure: configure)
        let monitor = try MonitorHarness.monitor(client)
        let ids = try await client.signIn(with: .dev(subject: "ada")).eventIDs
        let states = await MonitorHarness.settled(monitor, ids)
        #expect(states.allSatisfy { $0.verified != nil })
        for _ in 0..<more { server.append(TestEvent(userID: UUID().uuidString.lowercased())) }
        return (client, monitor, ids)
    }

    /// Makes the client name `count` new events of its user (a refresh) and returns the first alarm raised.
    static func alarm(after client: AuthlogClient, _ events: AsyncStream<MonitorEvent>) async throws -> SplitViewAlarm?
    {
        try await client.refresh()
        return await firstEvent(of: events) { if case .alarm(let alarm) = $0 { alarm } else { nil } }
    }

    /// Another user's event, for the forks.
    static var stranger: TestEvent { TestEvent(userID: UUID().uuidString.lowercased()) }

    @Test func theSameSizeWithAnotherRootIsAFork() async throws {
        let server = try FakeAuthlog()
        let (client, monitor, _) = try await Self.signedIn(server)
        let kept = try #require(await monitor.state().keptCheckpoint)
        let events = client.monitorEvents()
        // The refresh appends the third event; the fork shows a tree of 3 whose second leaf differs from the
        // kept tree's... at the kept size 2 first: same size, another root.
        server.set(autoSeal: false)
        server.show(fork: { $0.replace(position: 2, with: Self.stranger) })
        let alarm = try #require(try await Self.alarm(after: client, events))
        #expect(alarm.reason == .fork)
        #expect(alarm.keptSize == 2 && alarm.shownSize == 2)
        #expect(alarm.keptNote.hasPrefix(kept.body))
        // Both notes open with the pinned key: portable evidence.
        let key = server.keys.log.verifier
        #expect(Checkpoint(body: try key.open(alarm.keptNote)) == kept)
        let shown = try #require(Checkpoint(body: try key.open(alarm.shownNote)))
        #expect(shown.size == 2 && shown.root != kept.root)
        // The kept checkpoint stays; the alarm stands.
        #expect(await monitor.state().keptCheckpoint == kept)
        #expect(await monitor.state().alarm == alarm)
        // The evidence holds both notes verbatim.
        #expect(alarm.evidence.contains("(size 2)-----\n" + alarm.keptNote + "-----END KEPT CHECKPOINT-----"))
        #expect(alarm.evidence.contains("(size 2)-----\n" + alarm.shownNote + "-----END SHOWN CHECKPOINT-----"))
    }

    @Test func aBiggerTreeWhoseProofFailsIsInconsistent() async throws {
        let server = try FakeAuthlog()
        let (client, monitor, _) = try await Self.signedIn(server)
        let kept = try #require(await monitor.state().keptCheckpoint)
        let events = client.monitorEvents()
        // History rewritten below the kept size, then grown: the proof from 2 is the forged tree's.
        server.show(fork: { tree in
            tree.replace(position: 1, with: Self.stranger)
            tree.append(Self.stranger)
            tree.append(Self.stranger)
        })
        let alarm = try #require(try await Self.alarm(after: client, events))
        #expect(alarm.reason == .inconsistent)
        #expect(alarm.keptSize == 2 && alarm.shownSize == 4)
        #expect(alarm.consistencyProof?.isEmpty == false)
        #expect(alarm.detail.hasPrefix("The consistency proof fails"))
        #expect(await monitor.state().keptCheckpoint == kept, "never replaced by an unproven checkpoint")
    }

    @Test func aBiggerTreeWithoutItsConsistencyProofIsUnproven() async throws {
        let server = try FakeAuthlog()
        let (client, monitor, _) = try await Self.signedIn(server, more: 3)
        let kept = try #require(await monitor.state().keptCheckpoint)
        let events = client.monitorEvents()
        server.set(omitConsistency: true)
        let alarm = try #require(try await Self.alarm(after: client, events))
        #expect(alarm.reason == .unproven)
        #expect(alarm.keptSize == 2 && alarm.shownSize == 6)
        #expect(alarm.consistencyProof == nil)
        #expect(await monitor.state().keptCheckpoint == kept)
    }

    @Test func aSmallerTreeThatIsNotAPrefixIsARollback() async throws {
        let server = try FakeAuthlog()
        let (client, monitor, _) = try await Self.signedIn(server, more: 3)
        // The device keeps the tree of 6 (the refresh's event is the 6th... its 3 others are sealed first).
        try await client.refresh()
        #expect(await eventually { await monitor.state().keptCheckpoint?.size == 6 })
        let kept = try #require(await monitor.state().keptCheckpoint)
        let events = client.monitorEvents()
        // Then a tree of 4 with another history, whose proof to 6 the log gives from the true log.
        server.show(
            fork: { tree in
                tree = tree.prefix(3)
                tree.append(Self.stranger)
            },
            proofsFromTrueLog: true
        )
        let alarm = try #require(try await Self.alarm(after: client, events))
        #expect(alarm.reason == .rollback)
        #expect(alarm.keptSize == 6 && alarm.shownSize == 4)
        #expect(alarm.consistencyProof?.isEmpty == false)
        #expect(await monitor.state().keptCheckpoint == kept)
    }

    @Test func aSmallerTreeTheLogCannotProveToTheKeptSizeIsARollback() async throws {
        let server = try FakeAuthlog()
        let (client, monitor, _) = try await Self.signedIn(server, more: 3)
        try await client.refresh()
        #expect(await eventually { await monitor.state().keptCheckpoint?.size == 6 })
        let events = client.monitorEvents()
        // The log now claims to be 4 leaves long: asked for the proof from 4 to 6, it answers out_of_range.
        server.show(fork: { tree in tree = tree.prefix(4) })
        let alarm = try #require(try await Self.alarm(after: client, events))
        #expect(alarm.reason == .rollback)
        #expect(alarm.detail.contains("out_of_range"))
        #expect(alarm.consistencyProof == nil)
    }

    @Test func anOlderCheckpointProvenAPrefixIsNoAlarm() async throws {
        let server = try FakeAuthlog()
        let (client, monitor, _) = try await Self.signedIn(server, more: 3)
        try await client.refresh()
        #expect(await eventually { await monitor.state().keptCheckpoint?.size == 6 })
        // The true log's tree of 4 (an older witnessed checkpoint, say): proven a prefix by the proof route.
        server.show(fork: { tree in tree = tree.prefix(4) }, proofsFromTrueLog: true)
        let events = client.monitorEvents()
        let signIn = try await client.signIn(with: .dev(subject: "ada"))
        // The new events are not in the tree of 4: pending until the log shows a tree that holds them.
        #expect(await eventually { server.count("/v1/log/proof/consistency") == 1 })
        #expect(await monitor.state().alarm == nil)
        #expect(await monitor.state().keptCheckpoint?.size == 6)
        server.showTrueLog()
        let states = await MonitorHarness.settled(monitor, signIn.eventIDs)
        #expect(states.allSatisfy { $0.verified != nil })
        let alarmed = await firstEvent(of: events, within: .milliseconds(300)) {
            if case .alarm = $0 { true } else { nil }
        }
        #expect(alarmed == nil)
    }

    @Test func theKeptCheckpointAndTheAlarmSurviveANewClientOnTheSameFile() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("monitor-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let tokens = FileTokenStore(url: folder.appendingPathComponent("tokens.json"))
        let server = try FakeAuthlog()
        // Each launch ends (its monitor is gone, its last record written) before the next begins.
        weak var ended: LogMonitor?
        let kept: Checkpoint
        do {
            let (_, monitor, _) = try await Self.signedIn(server, store: FileCheckpointStore(beside: tokens))
            kept = try #require(await monitor.state().keptCheckpoint)
            ended = monitor
        }
        #expect(await eventually { ended == nil })
        // A new client (a new launch) on the same file starts from the tree of 2: it asks from 2 (a monitor with
        // nothing kept asks with no `from`) and keeps the tree of 4 it proves consistent with it.
        let alarm: SplitViewAlarm
        let keptNow: Checkpoint?
        do {
            let (client, monitor, _) = try await Self.signedIn(server, store: FileCheckpointStore(beside: tokens))
            #expect(await monitor.state().keptCheckpoint?.size == 4)
            #expect(server.receiptRequests.last?["from"] == "\(kept.size)")
            let events = client.monitorEvents()
            server.set(autoSeal: false)
            server.show(fork: { $0.replace(position: 3, with: Self.stranger) })
            alarm = try #require(try await Self.alarm(after: client, events))
            #expect(alarm.reason == .fork)
            keptNow = await monitor.state().keptCheckpoint
            #expect(keptNow?.size == 4)
            ended = monitor
        }
        #expect(await eventually { ended == nil })
        // A third launch opens with the standing alarm, until the app clears it (and with the refresh's event,
        // which the forked view did not hold: it still waits).
        do {
            let third = try MonitorHarness.client(server, store: FileCheckpointStore(beside: tokens))
            var opened = third.monitorEvents().makeAsyncIterator()
            #expect(
                await opened.next() == .initialState(MonitorState(keptCheckpoint: keptNow, alarm: alarm, queued: 1))
            )
            try await MonitorHarness.monitor(third).clearAlarm()
            #expect(await opened.next() == .alarmCleared)
            ended = third.monitor
        }
        #expect(await eventually { ended == nil })
        let fourth = try MonitorHarness.monitor(
            MonitorHarness.client(server, store: FileCheckpointStore(beside: tokens))
        )
        #expect(await fourth.state().alarm == nil)
        #expect(await fourth.state().keptCheckpoint?.size == 4)
    }

    @Test func theAlarmIsPostedToTheConfiguredURLWithABoundedRetry() async throws {
        let server = try FakeAuthlog()
        server.set(alarmStatuses: [503])
        let url = server.baseURL.appendingPathComponent("alarms")
        let (client, _, _) = try await Self.signedIn(server) { $0.alarmReportURL = url }
        let events = client.monitorEvents()
        server.set(autoSeal: false)
        server.show(fork: { $0.replace(position: 1, with: Self.stranger) })
        let alarm = try #require(try await Self.alarm(after: client, events))
        let delivered = await firstEvent(of: events) {
            if case .alarmReported(let delivered) = $0 { delivered } else { nil }
        }
        #expect(delivered == true)
        #expect(server.alarms.count == 2, "one try answered 503, then one retry")
        let body = try #require(server.alarms.last)
        #expect(try JSONDecoder().decode(SplitViewAlarm.self, from: body) == alarm)
        let object = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        #expect(object["evidence"] as? String == alarm.evidence)
        // The same view shown again raises nothing more, until the app clears the alarm.
        try await client.refresh()
        try await Task.sleep(for: .milliseconds(300))
        #expect(server.alarms.count == 2)
        let monitor = try MonitorHarness.monitor(client)
        try await monitor.clearAlarm()
        try await client.refresh()
        #expect(await eventually { server.alarms.count == 3 })
        #expect(await monitor.state().alarm?.shownNote == alarm.shownNote)
    }

    @Test func aReceiverThatRefusesGetsNoRetry() async throws {
        let server = try FakeAuthlog()
        server.set(alarmStatuses: [400])
        let url = server.baseURL.appendingPathComponent("alarms")
        let (client, _, _) = try await Self.signedIn(server) { $0.alarmReportURL = url }
        let events = client.monitorEvents()
        server.set(autoSeal: false)
        server.show(fork: { $0.replace(position: 1, with: Self.stranger) })
        _ = try #require(try await Self.alarm(after: client, events))
        let delivered = await firstEvent(of: events) {
            if case .alarmReported(let delivered) = $0 { delivered } else { nil }
        }
        #expect(delivered == false)
        #expect(server.alarms.count == 1)
    }

    @Test func theAlarmRoundTripsThroughJSONAndItsEvidenceHoldsBothNotes() throws {
        let alarm = SplitViewAlarm(
            reason: .inconsistent,
            keptNote: "authlog.test/log\n2\nAAAA\n\n\u{2014} authlog.test/log abcd\n",
            shownNote: "authlog.test/log\n4\nBBBB\n\n\u{2014} authlog.test/log efgh\n",
            keptSize: 2,
            shownSize: 4,
            consistencyProof: [[UInt8](repeating: 1, count: 32)],
            detail: "The consistency proof fails.",
            detectedAt: Date(timeIntervalSince1970: 1_795_600_000)
        )
        let decoded = try JSONDecoder().decode(SplitViewAlarm.self, from: try JSONEncoder().encode(alarm))
        #expect(decoded == alarm)
        #expect(
            alarm.evidence == """
                authlog split-view alarm: inconsistent
                detected at 2026-11-25T09:46:40Z
                The log's proof that the tree of 2 is a prefix of the tree of 4 does not verify.
                The consistency proof fails.

                -----BEGIN KEPT CHECKPOINT (size 2)-----
                authlog.test/log
                2
                AAAA

                \u{2014} authlog.test/log abcd
                -----END KEPT CHECKPOINT-----
                -----BEGIN SHOWN CHECKPOINT (size 4)-----
                authlog.test/log
                4
                BBBB

                \u{2014} authlog.test/log efgh
                -----END SHOWN CHECKPOINT-----
                -----BEGIN CONSISTENCY PROOF (from 2 to 4, 1 hashes)-----
                AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE=
                -----END CONSISTENCY PROOF-----

                """
        )
    }
}
