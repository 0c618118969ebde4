import AuthlogTransparency
import Foundation
import Testing

@testable import AuthlogClient

/// Every bad answer from the server is a typed error or an exact refusal, never a crash: a truncated proof, a
/// wrong key, a 64-level proof, a note over the size limit, bad base64, a body over the bound, members missing
/// or of the wrong type, events not asked for, garbage event bytes.
@Suite(.timeLimit(.minutes(1)))
struct MonitorBadInputTests {
    /// A client signed in to `server` after five events of other users (so that proofs have hashes), whose
    /// monitor asks only when told (``LogMonitor/checkNow()``).
    static func signedIn(
        _ server: FakeAuthlog,
        configure: (inout LogMonitor.Configuration) -> Void = { _ in }
    ) async throws -> (AuthlogClient, LogMonitor, [String]) {
        for _ in 0..<5 { server.append(TestEvent(userID: UUID().uuidString.lowercased())) }
        let client = try MonitorHarness.client(server) {
            $0.firstCheckDelay = .seconds(3_600)
            configure(&$0)
        }
        let ids = try await client.signIn(with: .dev(subject: "ada")).eventIDs
        return (client, try MonitorHarness.monitor(client), ids)
    }

    /// The error `checkNow()` throws once `rewrite` changed the answer; nil when it throws none.
    static func error(
        _ rewrite: @escaping @Sendable (inout [String: Any]) -> Void,
        configure: (inout LogMonitor.Configuration) -> Void = { _ in }
    ) async throws -> MonitorError? {
        let server = try FakeAuthlog()
        let (_, monitor, _) = try await Self.signedIn(server, configure: configure)
        server.set(rewrite: rewrite)
        do {
            try await monitor.checkNow()
            return nil
        } catch {
            return error
        }
    }

    /// The states of the sign-in's events once `rewrite` changed the answer and `checkNow()` ran.
    static func states(_ rewrite: @escaping @Sendable (inout [String: Any]) -> Void) async throws -> [ReceiptState] {
        let server = try FakeAuthlog()
        let (_, monitor, ids) = try await Self.signedIn(server)
        server.set(rewrite: rewrite)
        try await monitor.checkNow()
        var states: [ReceiptState] = []
        for id in ids { states.append(await monitor.receiptState(of: id)) }
        return states
    }

    /// `field`'s base64 with its last `count` bytes cut.
    static func cut(_ object: inout [String: Any], _ field: String, bytes count: Int) {
        let bytes = Data(base64Encoded: object[field] as? String ?? "") ?? Data()
        object[field] = bytes.dropLast(count).base64EncodedString()
    }

    @Test func aProofCutInsideAHashIsABadProof() async throws {
        let error = try await Self.error { Self.cut(&$0, "proof", bytes: 7) }
        guard case .badProof(field: "proof", let detail) = error else {
            Issue.record("expected a bad proof, got \(String(describing: error))")
            return
        }
        #expect(detail.hasSuffix("are not whole 32-byte hashes"))
    }

    @Test func aProofShortOfAWholeHashIsRefused() async throws {
        let states = try await Self.states { Self.cut(&$0, "proof", bytes: 32) }
        for state in states {
            guard case .refused(.proofFailed(.malformed(let why))) = state else {
                Issue.record("expected the proof refused, got \(state)")
                continue
            }
            #expect(why.contains("hashes where"))
        }
    }

    @Test func aSixtyFourLevelProofIsRefused() async throws {
        let states = try await Self.states {
            $0["proof"] = Data((0..<64 * 32).map { UInt8(truncatingIfNeeded: $0) }).base64EncodedString()
        }
        #expect(states.count == 2)
        for state in states {
            guard case .refused(.proofFailed(.malformed(let why))) = state else {
                Issue.record("expected the proof refused, got \(state)")
                continue
            }
            #expect(why.contains("64 hashes where"))
        }
    }

    @Test func aProofOverItsBoundIsRefusedBeforeItIsDecoded() async throws {
        let error = try await Self.error {
            $0["proof"] = String(repeating: "A", count: (ReceiptsAnswer.maximumProofHashes * 32 + 2) / 3 * 4 + 4)
        }
        #expect(error == .badProof(field: "proof", detail: "more than \(ReceiptsAnswer.maximumProofHashes) hashes"))
    }

    @Test func aCheckpointSignedByAnotherKeyIsTheWrongKey() async throws {
        let server = try FakeAuthlog()
        let (_, monitor, ids) = try await Self.signedIn(server)
        server.set(signWithImpostor: true)
        await #expect(throws: MonitorError.checkpoint(.notSignedByKey(TestLogKeys.origin))) {
            try await monitor.checkNow()
        }
        #expect(
            await monitor.receiptState(of: ids[0])
                == .pending(.retrying(.checkpoint(.notSignedByKey(TestLogKeys.origin))))
        )
        #expect(await monitor.state().keptCheckpoint == nil)
    }

    @Test func aNoteOverTheSizeLimitIsRefused() async throws {
        let error = try await Self.error {
            $0["checkpoint"] =
                ($0["checkpoint"] as? String ?? "") + String(repeating: "x", count: LogMonitor.maximumNoteBytes)
        }
        #expect(error == .noteTooLarge(limit: LogMonitor.maximumNoteBytes))
    }

    @Test func badBase64IsRefusedNamingTheMember() async throws {
        let inEvent = try await Self.error { object in
            var receipts = object["receipts"] as? [[String: Any]] ?? []
            receipts[0]["event"] = "not*base64"
            receipts[0]["event_text"] = nil
            object["receipts"] = receipts
        }
        #expect(inEvent == .badBase64(field: "receipts.event"))
        let inProof = try await Self.error { $0["proof"] = "%%%%" }
        #expect(inProof == .badBase64(field: "proof"))
    }

    @Test func eventTextOutsideOneBytePerCharacterOrBesideBase64IsRefused() async throws {
        let wide = try await Self.error { object in
            var receipts = object["receipts"] as? [[String: Any]] ?? []
            receipts[0]["event_text"] = (receipts[0]["event_text"] as? String ?? "") + "\u{100}"
            object["receipts"] = receipts
        }
        #expect(wide == .malformedAnswer("a receipt's event_text holds a character above U+00FF"))
        let both = try await Self.error { object in
            var receipts = object["receipts"] as? [[String: Any]] ?? []
            receipts[0]["event"] = Data([1, 2, 3]).base64EncodedString()
            object["receipts"] = receipts
        }
        #expect(both == .malformedAnswer("a receipt must hold exactly one of event and event_text"))
        let neither = try await Self.error { object in
            var receipts = object["receipts"] as? [[String: Any]] ?? []
            receipts[0]["event_text"] = nil
            object["receipts"] = receipts
        }
        #expect(neither == .malformedAnswer("a receipt must hold exactly one of event and event_text"))
    }

    @Test func aBodyOverTheBoundIsRefused() async throws {
        let error = try await Self.error(
            { $0["padding"] = String(repeating: "a", count: 5_000) },
            configure: { $0.maximumAnswerBytes = 4_096 }
        )
        #expect(error == .answerTooLarge(limit: 4_096))
    }

    @Test func missingMembersAreNamed() async throws {
        #expect(try await Self.error { $0["checkpoint"] = nil } == .missingField("checkpoint"))
        #expect(try await Self.error { $0["witnessed"] = nil } == .missingField("witnessed"))
        #expect(try await Self.error { $0["receipts"] = nil } == .missingField("receipts"))
        #expect(try await Self.error { $0["proof"] = nil } == .missingField("proof"))
        let index = try await Self.error { object in
            var receipts = object["receipts"] as? [[String: Any]] ?? []
            receipts[0]["index"] = nil
            object["receipts"] = receipts
        }
        guard case .missingField(let name) = index else {
            Issue.record("expected a missing member, got \(String(describing: index))")
            return
        }
        #expect(name.hasPrefix("receipts.") && name.hasSuffix(".index"))
    }

    @Test func membersOfTheWrongTypeOrValueAreMalformed() async throws {
        let index = try await Self.error { object in
            var receipts = object["receipts"] as? [[String: Any]] ?? []
            receipts[0]["index"] = "seven"
            object["receipts"] = receipts
        }
        guard case .malformedAnswer = index else {
            Issue.record("expected a malformed answer, got \(String(describing: index))")
            return
        }
        let negative = try await Self.error { object in
            var receipts = object["receipts"] as? [[String: Any]] ?? []
            receipts[0]["index"] = -1
            object["receipts"] = receipts
        }
        #expect(negative == .malformedAnswer("a receipt's index is outside 0…2^62"))
        #expect(
            try await Self.error { $0["witnessed"] = "maybe" }
                == .malformedAnswer("`witnessed` is not yes, pending or none")
        )
    }

    @Test func anAnswerThatIsNotJSONIsMalformed() async throws {
        let server = try FakeAuthlog()
        let (_, monitor, _) = try await Self.signedIn(server)
        server.queue(rawAnswer: HTTPAnswer(status: 200, body: Data("<html>oops</html>".utf8)))
        await #expect(throws: MonitorError.malformedAnswer("not JSON")) { try await monitor.checkNow() }
    }

    @Test func anEventNotAskedForIsRefused() async throws {
        let stranger = UUID().uuidString.lowercased()
        let error = try await Self.error { $0["not_found"] = [stranger] }
        #expect(error == .unexpectedEvent(stranger))
    }

    @Test func eventBytesThatAreNotAnEventAreRefused() async throws {
        let states = try await Self.states { object in
            var receipts = object["receipts"] as? [[String: Any]] ?? []
            receipts[0]["event_text"] = "authlog.event.v2 but not really"
            object["receipts"] = receipts
        }
        for state in states {
            guard case .refused(.proofFailed(.event)) = state else {
                Issue.record("expected the event refused, got \(state)")
                continue
            }
        }
    }

    @Test func badAnswersInARowRefuseTheEventsAfterTheBound() async throws {
        let server = try FakeAuthlog()
        let (_, monitor, ids) = try await Self.signedIn(server) { $0.badAnswerTries = 2 }
        server.set(rewrite: { $0["checkpoint"] = nil })
        await #expect(throws: MonitorError.missingField("checkpoint")) { try await monitor.checkNow() }
        #expect(await monitor.receiptState(of: ids[0]) == .pending(.retrying(.missingField("checkpoint"))))
        await #expect(throws: MonitorError.missingField("checkpoint")) { try await monitor.checkNow() }
        #expect(await monitor.receiptState(of: ids[0]) == .refused(.badAnswers(.missingField("checkpoint"))))
    }

    @Test func anErrorStatusIsTypedAndDoesNotCountAgainstTheEvents() async throws {
        let server = try FakeAuthlog()
        let (_, monitor, ids) = try await Self.signedIn(server) { $0.badAnswerTries = 1 }
        server.queue(rawAnswer: .json(503, ["error": "database_unavailable"]))
        await #expect(throws: MonitorError.http(status: 503, code: "database_unavailable")) {
            try await monitor.checkNow()
        }
        #expect(
            await monitor.receiptState(of: ids[0])
                == .pending(.retrying(.http(status: 503, code: "database_unavailable")))
        )
        try await monitor.checkNow()
        #expect(await monitor.receiptState(of: ids[0]).verified != nil)
    }

    @Test func aMalformedConsistencyProofTheLogHadToGiveIsAnAlarm() async throws {
        let server = try FakeAuthlog()
        let (client, monitor, _) = try await Self.signedIn(server)
        try await monitor.checkNow()
        try await client.refresh()
        server.set(rewrite: { $0["consistency"] = "AAAA" })
        try await monitor.checkNow()
        let alarm = try #require(await monitor.state().alarm)
        #expect(alarm.reason == .inconsistent)
        #expect(alarm.detail.contains("not whole 32-byte hashes"))
        #expect(await monitor.state().keptCheckpoint?.size == 7)
    }

    @Test func aMalformedConsistencyProofTheLogDidNotHaveToGiveIsAnError() async throws {
        let server = try FakeAuthlog()
        let (client, monitor, _) = try await Self.signedIn(server)
        try await monitor.checkNow()
        // The same tree again (the refresh's event is not sealed): no proof was due, so a bad one proves nothing.
        server.set(autoSeal: false)
        try await client.refresh()
        server.set(rewrite: { $0["consistency"] = "%%%%" })
        await #expect(throws: MonitorError.badBase64(field: "consistency")) { try await monitor.checkNow() }
        #expect(await monitor.state().alarm == nil)
        #expect(await monitor.state().keptCheckpoint?.size == 7)
    }

    @Test func aCheckpointOfTheLargestSizeWithASixtyFourHashProofIsAnAlarmNotACrash() async throws {
        let server = try FakeAuthlog()
        let (client, monitor, _) = try await Self.signedIn(server)
        try await monitor.checkNow()
        try await client.refresh()
        let keys = server.keys
        let note = try keys.note(
            size: Int64.max,
            root: [UInt8](repeating: 9, count: 32),
            cosigners: [keys.witnesses[0]]
        )
        server.set(rewrite: { object in
            object["checkpoint"] = note
            object["receipts"] = [[String: Any]]()
            object["proof"] = ""
            object["pending"] = [[String: Any]]()
            object["consistency"] = Data([UInt8](repeating: 7, count: 64 * 32)).base64EncodedString()
        })
        try await monitor.checkNow()
        let alarm = try #require(await monitor.state().alarm)
        #expect(alarm.reason == .inconsistent)
        #expect(alarm.shownSize == Int64.max)
        #expect(await monitor.state().keptCheckpoint?.size == 7)
    }

    @Test func theProofRoutesBadAnswersAreTyped() {
        func error(_ json: String) -> MonitorError? {
            do {
                _ = try ConsistencyAnswer.proof(Data(json.utf8), from: 2, to: 4, limit: 8_192)
                return nil
            } catch {
                return error
            }
        }
        let hash = Data(repeating: 1, count: 32).base64EncodedString()
        #expect(error(#"{"from":2,"to":4,"proof":["\#(hash)"]}"#) == nil)
        #expect(error(#"{"from":2,"to":4}"#) == .missingField("proof"))
        #expect(error(#"{"from":1,"to":4,"proof":[]}"#) == .malformedAnswer("the proof is for 1…4, not 2…4"))
        #expect(
            error(#"{"from":2,"to":4,"proof":["AAAA"]}"#) == .badProof(field: "proof", detail: "a hash is not 32 bytes")
        )
        #expect(error(#"{"from":2,"to":4,"proof":["%%"]}"#) == .badBase64(field: "proof"))
        let many = Array(repeating: "\"\(hash)\"", count: 127).joined(separator: ",")
        #expect(
            error(#"{"from":2,"to":4,"proof":[\#(many)]}"#) == .badProof(field: "proof", detail: "more than 126 hashes")
        )
        #expect(error(String(repeating: " ", count: 8_193)) == .answerTooLarge(limit: 8_192))
        #expect(error("[]") == .malformedAnswer("not a JSON object"))
    }
}
