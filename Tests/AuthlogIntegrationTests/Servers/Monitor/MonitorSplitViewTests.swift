import AuthlogClient
import AuthlogCore
import AuthlogTesting
import AuthlogTransparency
import Foundation
import Testing

extension Servers {
    /// A log that shows one user a second history: two `authlog serve` processes signing with one checkpoint key
    /// (one origin), the second on a copy of the first one's database taken after the user signed in (so it
    /// holds the user's session and accepts their access token: the same token key and data key), after which
    /// each records other people's sign-ins. The user's device (AuthlogClient with the monitor on, through a proxy
    /// on 127.0.0.1) keeps a checkpoint of server A; then the proxy sends its `/v1/log/` reads to server B.
    /// Server configuration: the defaults but for a checkpoint key, a checkpoint directory, a checkpoint at least
    /// every second while events arrive (instead of 60 s), and keys given in files (``MonitoredLog``).
    @Suite(.enabled(if: TestDatabase.isAvailable && SplitViewChecker.isWanted))
    struct MonitorSplitViewTests {
        /// B's tree is bigger and its consistency proof from the kept size does not verify: the device raises the
        /// split-view alarm with both notes, keeps A's checkpoint, and Go's `sumdb/note` and `sumdb/tlog`, reading
        /// only the alarm's evidence text and the log's verifier key, agree that one key signed two histories.
        @Test func aForkShownToOneUserRaisesTheAlarmAndGoAgrees() async throws {
            let checker = try await SplitViewChecker.build()
            try await MonitorServers.run { servers in
                let (device, monitor) = try servers.device()
                let signedIn = try await device.signIn(with: .dev(subject: "forked-user"))
                let b = try await servers.fork()
                try await MonitorServers.otherUsers(1, at: servers.a, named: "a-only")
                let kept = try await MonitorServers.settledCheckpoint(of: servers.a)
                try await monitor.checkNow()
                let states = await monitor.states(signedIn.eventIDs)
                #expect(await monitor.allVerified(signedIn.eventIDs), "\(states)")
                #expect(await monitor.state().keptCheckpoint?.size == kept.size)

                try await MonitorServers.otherUsers(8, at: b, named: "b-only")
                let shown = try await MonitorServers.settledCheckpoint(of: b)
                try #require(shown.size > kept.size, "B's history must be the bigger one: \(shown.size) ≤ \(kept.size)")
                servers.proxy.divertLogReads(to: b.baseURL.absoluteString)
                let events = device.monitorEvents()
                try await device.refresh()  // an event of server A, whose receipt the device now asks of server B
                try? await monitor.checkNow()
                let raised = await firstEvent(of: events, within: .seconds(30)) {
                    if case .alarm = $0 { return true }
                    return false
                }
                guard case .alarm(let alarm) = raised else {
                    Issue.record("no alarm: \(await monitor.state())")
                    return
                }
                print("split-view alarm evidence (fork test):\n\(alarm.evidence)")
                #expect(alarm.reason == .inconsistent)
                #expect(alarm.keptSize == kept.size)
                #expect(alarm.keptNote == kept.note, "the note A signed, verbatim")
                #expect(await monitor.state().alarm == alarm, "the alarm stands")
                #expect(await monitor.state().keptCheckpoint?.size == kept.size, "A's checkpoint stays kept")
                let served = try #require(
                    servers.proxy.logAnswers.last {
                        $0.0.path == "/v1/log/receipts" && $0.0.server != servers.a.baseURL.absoluteString
                    }
                )
                // B keeps signing checkpoints over its own checkpoint records, so the note it served may be newer
                // than `shown`; the alarm must hold exactly the note B served.
                let servedNote = try #require(served.1.json["checkpoint"]?.stringValue)
                #expect(alarm.shownNote == servedNote, "the note B signed and served, verbatim")
                #expect(alarm.shownSize >= shown.size)
                #expect(alarm.shownNote.hasPrefix("\(MonitoredLog.origin)\n\(alarm.shownSize)\n"), "the size B signed")
                let proof = try #require(served.1.json["consistency"]?.stringValue.flatMap { Data(base64Encoded: $0) })
                #expect(alarm.consistencyProof?.flatMap { $0 } == Array(proof), "the proof B served, in the evidence")

                let verdict = try await checker.check(verifierKey: servers.log.verifierKey, evidence: alarm.evidence)
                print("splitviewcheck (Go sumdb/note, sumdb/tlog) on the evidence:\n\(verdict.output)")
                #expect(
                    verdict.line.hasPrefix(
                        "verdict: inconsistent: tlog.CheckTree refuses the proof from \(kept.size) to \(alarm.shownSize)"
                    ),
                    "\(verdict.output)"
                )

                // The same check on two of A's own checkpoints and A's proof between them: consistent.
                try await MonitorServers.otherUsers(2, at: servers.a, named: "a-later")
                let later = try await MonitorServers.settledCheckpoint(of: servers.a)
                let control = try await self.evidence(from: alarm.keptNote, to: later, at: servers.a)
                let agreed = try await checker.check(verifierKey: servers.log.verifierKey, evidence: control)
                #expect(
                    agreed.line
                        == "verdict: consistent: the tree of \(kept.size) is a prefix of the tree of \(later.size)",
                    "\(agreed.output)"
                )
            }
        }

        /// The device kept a checkpoint of A; B, a copy of A's database from before that checkpoint that grew less,
        /// shows a smaller tree. The device asks B for the proof that the smaller tree is a prefix of the kept one;
        /// B cannot give it (it never had the kept size): a rollback alarm, and the kept checkpoint stays.
        @Test func aRollbackAfterTheDeviceSawANewerCheckpointRaisesTheAlarm() async throws {
            try await MonitorServers.run { servers in
                let (device, monitor) = try servers.device()
                let signedIn = try await device.signIn(with: .dev(subject: "rolled-back-user"))
                let b = try await servers.fork()
                try await MonitorServers.otherUsers(8, at: servers.a, named: "a-only")
                let kept = try await MonitorServers.settledCheckpoint(of: servers.a)
                try await monitor.checkNow()
                let states = await monitor.states(signedIn.eventIDs)
                #expect(await monitor.allVerified(signedIn.eventIDs), "\(states)")
                #expect(await monitor.state().keptCheckpoint?.size == kept.size)

                try await MonitorServers.otherUsers(1, at: b, named: "b-only")
                let shown = try await MonitorServers.settledCheckpoint(of: b)
                try #require(
                    shown.size < kept.size,
                    "B's history must be the smaller one: \(shown.size) ≥ \(kept.size)"
                )
                servers.proxy.divertLogReads(to: b.baseURL.absoluteString)
                try await device.refresh()
                try? await monitor.checkNow()
                let state = await monitor.state()
                let alarm = try #require(state.alarm, "\(state)")
                print("split-view alarm evidence (rollback test):\n\(alarm.evidence)")
                #expect(alarm.reason == .rollback)
                #expect(alarm.keptSize == kept.size)
                #expect(alarm.keptNote == kept.note)
                // B may sign a newer checkpoint over its own checkpoint records after `shown`: the alarm holds the
                // note B served, verbatim.
                let served = try #require(
                    servers.proxy.logAnswers.last {
                        $0.0.path == "/v1/log/receipts" && $0.0.server != servers.a.baseURL.absoluteString
                    }
                )
                #expect(alarm.shownNote == served.1.json["checkpoint"]?.stringValue)
                #expect(alarm.shownSize >= shown.size && alarm.shownSize < kept.size)
                #expect(await monitor.state().keptCheckpoint?.size == kept.size, "A's checkpoint stays kept")
                let asked = servers.proxy.logAnswers.map { "\($0.0.method) \($0.0.target) → \($0.1.status)" }
                let proofRequest = "GET /v1/log/proof/consistency?from=\(alarm.shownSize)&to=\(kept.size)"
                #expect(
                    asked.contains { $0.hasPrefix(proofRequest) },
                    "the device asked B for the proof: \(asked)"
                )
            }
        }

        /// Evidence text with `keptNote` and `later`'s note and the proof `server` gives between them.
        private func evidence(
            from keptNote: String,
            to later: (note: String, size: Int64),
            at server: ClientTestServer
        ) async throws -> String {
            let keptSize = try #require(Int64(keptNote.split(separator: "\n")[1]))
            let answer = try await HTTPTestClient(baseURL: server.baseURL.absoluteString)
                .send("GET", "/v1/log/proof/consistency?from=\(keptSize)&to=\(later.size)")
            let hashes = try #require(answer.json["proof"]?.arrayValue).compactMap {
                $0.stringValue.flatMap { Data(base64Encoded: $0) }.map(Array.init)
            }
            return SplitViewAlarm(
                reason: .inconsistent,
                keptNote: keptNote,
                shownNote: later.note,
                keptSize: keptSize,
                shownSize: later.size,
                consistencyProof: hashes,
                detail: "control: two checkpoints of one history",
                detectedAt: Date()
            ).evidence
        }
    }
}
