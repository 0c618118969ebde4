import AuthlogCore
import AuthlogCrypto
import AuthlogPostgres
import AuthlogServer
import AuthlogStore
import AuthlogTesting
import AuthlogTransparency
import Foundation
import Hummingbird
import Logging
import Synchronization
import Testing

/// `serve`'s submissions to witnesses against a scripted witness on 127.0.0.1: each answer C2SP tlog-witness
/// defines is handled as it says, and the answers that show a fork or a rollback stop the submissions (one
/// request, no loop) and are recorded once as `audit.witness_alarm`, standing across restarts until cleared.
@Suite(.enabled(if: TestDatabase.isAvailable), .serialized)
struct WitnessSubmitterTests {
    /// A witness that answers each request with `answer(old, body)` and records the requests.
    actor Script {
        var requests: [String] = []
        let answer: @Sendable (Int64, String) -> (Int, String, String)

        init(_ answer: @escaping @Sendable (Int64, String) -> (Int, String, String)) { self.answer = answer }

        func handle(_ body: String) -> (Int, String, String) {
            self.requests.append(body)
            let old = body.split(separator: "\n").first.flatMap { Int64($0.dropFirst(4)) } ?? -1
            return self.answer(old, body)
        }
    }

    struct Scenario {
        let submitter: WitnessSubmitter
        let metrics: WitnessMetrics
        let script: Script
        let runner: ServiceRunner
    }

    let signer: CosignatureSigner

    init() throws {
        self.signer = try CosignatureSigner(name: "witness.test/scripted", key: try PrivateKey.generate(for: .edDSA))
    }

    func scenario(
        pool: ConnectionPool,
        witness: CosignatureSigner? = nil,
        evidence: String? = nil,
        answer: @escaping @Sendable (Int64, String) -> (Int, String, String)
    ) async throws -> Scenario {
        let signer = witness ?? self.signer
        let script = Script(answer)
        let router = Router()
        router.post("/add-checkpoint") { request, _ -> Response in
            let body = String(buffer: try await request.body.collect(upTo: 1 << 20))
            let (status, type, text) = await script.handle(body)
            return Response(
                status: HTTPResponse.Status(code: status),
                headers: [.contentType: type],
                body: .init(byteBuffer: ByteBuffer(string: text))
            )
        }
        let runner = try await ServiceRunner.start(router: router)
        let configuration = try JSONValue.object([
            (
                "log",
                .object([
                    ("witness_interval_seconds", .number("1")),
                    (
                        "witnesses",
                        .array([
                            .object([
                                ("name", .string(signer.name)), ("url", .string(runner.baseURL)),
                                ("verifier_key", .string(signer.verifier.verifierKey)),
                            ])
                        ])
                    ),
                ])
            )
        ]).decode(ServerConfiguration.self)
        let metrics = WitnessMetrics()
        var logger = Logger(label: "witness-submitter-test")
        logger.logLevel = .critical
        let submitter = WitnessSubmitter(
            settings: try WitnessSettings(configuration: configuration, checkpointKey: nil),
            store: PostgresEventStore(pool: pool),
            metrics: metrics,
            logger: logger,
            evidenceDirectory: evidence
        )
        return Scenario(submitter: submitter, metrics: metrics, script: script, runner: runner)
    }

    /// A fresh log of `events` events and its checkpoint, signed by a key of its own.
    static func signedLog(
        events: Int,
        seed: UInt64
    ) async throws -> (TestDatabase, ConnectionPool, PostgresEventStore, Checkpointer.Signed) {
        let database = try await TestDatabase.make()
        let pool = ConnectionPool(conninfo: database.conninfo, maximumConnections: 4)
        let store = PostgresEventStore(pool: pool)
        let log = try NoteSigner(name: "auth.test/log", key: try PrivateKey.generate(for: .edDSA))
        var traffic = TrafficGenerator(seed: seed)
        try await store.append(AppendCommand(events: traffic.events(count: events)))
        return (database, pool, store, try await Checkpointer(store: store, signer: log, directory: nil).signNow())
    }

    /// A witness of its own name: an alarm stands per witness, in the log.
    static func witness(_ name: String) throws -> CosignatureSigner {
        try CosignatureSigner(name: "witness.test/\(name)", key: try PrivateKey.generate(for: .edDSA))
    }

    static func metric(_ metrics: WitnessMetrics, _ name: String) -> Int? {
        metrics.lines().first { $0.hasPrefix(name + "{") || $0.hasPrefix(name + " ") }
            .flatMap { Int($0.split(separator: " ").last ?? "") }
    }

    @Test func eachAnswerAsTheSpecificationSays() async throws {
        let database = try await TestDatabase.make()
        let pool = ConnectionPool(conninfo: database.conninfo, maximumConnections: 3)
        let store = PostgresEventStore(pool: pool)
        let log = try NoteSigner(name: "auth.test/log", key: try PrivateKey.generate(for: .edDSA))
        let checkpointer = Checkpointer(store: store, signer: log, directory: nil)
        var traffic = TrafficGenerator(seed: 21)
        try await store.append(AppendCommand(events: traffic.events(count: 30)))
        let checkpoint = try await checkpointer.signNow()
        let body = try #require(NoteText(checkpoint.note)).body
        let cosigner = self.signer
        let sizeType = "text/x.tlog.size"

        // A 409 naming the old size just sent (tlog-witness v1.0.0's answer to a fork at that size): an alarm,
        // one request, none later.
        let fork = try await self.scenario(pool: pool, witness: try Self.witness("fork")) { old, _ in
            (409, sizeType, "\(old)\n")
        }
        await fork.submitter.pass()
        try await Task.sleep(for: .milliseconds(1100))
        await fork.submitter.pass()
        #expect(await fork.script.requests.count == 1)
        #expect(Self.metric(fork.metrics, "authlog_witness_alarm") == 1)
        await fork.runner.stop()

        // A 409 naming a size larger than the log's: a rollback of the log (or a fork); an alarm.
        let larger = try await self.scenario(pool: pool, witness: try Self.witness("larger")) { _, _ in
            (409, sizeType, "\(checkpoint.size + 5)\n")
        }
        await larger.submitter.pass()
        #expect(await larger.script.requests.count == 1)
        #expect(Self.metric(larger.metrics, "authlog_witness_alarm") == 1)
        await larger.runner.stop()

        // 422: the witness found the checkpoint inconsistent with what it cosigned; an alarm.
        let inconsistent = try await self.scenario(pool: pool, witness: try Self.witness("inconsistent")) { _, _ in
            (422, "text/plain", "no\n")
        }
        await inconsistent.submitter.pass()
        try await Task.sleep(for: .milliseconds(1100))
        await inconsistent.submitter.pass()
        #expect(await inconsistent.script.requests.count == 1)
        #expect(Self.metric(inconsistent.metrics, "authlog_witness_alarm") == 1)
        await inconsistent.runner.stop()
        let alarms = try await database.connect().query(
            """
            SELECT data->>'witness', reason, data->>'status' FROM authlog.event_records
            WHERE type = 'audit.witness_alarm' ORDER BY data->>'witness'
            """
        )
        #expect(
            try alarms.rows.map {
                "\(try $0.decode(String.self, at: 0)) \(try $0.decode(String.self, at: 1)) \(try $0.decode(String.self, at: 2))"
            }
                == [
                    "witness.test/fork fork 409", "witness.test/inconsistent inconsistent 422",
                    "witness.test/larger rollback 409",
                ],
            "each alarm recorded once, with its reason and the witness's status"
        )

        // A 409 without the text/x.tlog.size type is not a size: a failure, no resend; 403 backs off.
        let untyped = try await self.scenario(pool: pool) { _, _ in (409, "text/plain", "3\n") }
        await untyped.submitter.pass()
        #expect(await untyped.script.requests.count == 1)
        #expect(Self.metric(untyped.metrics, "authlog_witness_failures_total") == 1)
        #expect(Self.metric(untyped.metrics, "authlog_witness_alarm") == 0)
        await untyped.runner.stop()
        let forbidden = try await self.scenario(pool: pool) { _, _ in (403, "text/plain", "no\n") }
        await forbidden.submitter.pass()
        try await Task.sleep(for: .milliseconds(1100))
        let beforeSecondPass = ContinuousClock.now
        await forbidden.submitter.pass()  // one interval after the first failure: asked again
        #expect(await forbidden.script.requests.count == 2)
        try await Task.sleep(for: .milliseconds(1100))
        await forbidden.submitter.pass()
        // The second failure waits two intervals. A sleep can wake late on a loaded machine, so "not yet" is only
        // asserted when this pass ended less than two intervals after the second one began (the failure was
        // recorded after that beginning, and this pass read its clock before its end).
        if ContinuousClock.now - beforeSecondPass < .seconds(2) {
            #expect(await forbidden.script.requests.count == 2)
        } else {
            #expect(await forbidden.script.requests.count <= 3)
        }
        #expect(Self.metric(forbidden.metrics, "authlog_witness_alarm") == 0)
        await forbidden.runner.stop()

        // A 200 whose cosignature is by another key under the witness's name: not stored.
        let impostor = try CosignatureSigner(name: cosigner.name, key: try PrivateKey.generate(for: .edDSA))
        let forged = try await self.scenario(pool: pool) { _, _ in
            (200, "text/plain", (try? impostor.cosign(body: body, time: 1_795_600_000)) ?? "")
        }
        await forged.submitter.pass()
        #expect(Self.metric(forged.metrics, "authlog_witness_failures_total") == 1)
        let connection = try await database.connect()
        #expect(try await CheckpointCosignatures.lines(treeSize: checkpoint.size, on: connection).isEmpty)
        await forged.runner.stop()

        // A 409 naming a smaller size: resent from there with the consistency proof, then cosigned; the line is
        // stored and appended to the served note, which the witness policy finds witnessed.
        let resync = try await self.scenario(pool: pool) { old, _ in
            if old != 3 { return (409, sizeType, "3\n") }
            return (200, "text/plain", (try? cosigner.cosign(body: body, time: 1_795_600_000)) ?? "")
        }
        await resync.submitter.pass()
        let requests = await resync.script.requests
        #expect(requests.count == 2)
        #expect(requests.first?.hasPrefix("old 0\n\n") == true)
        let proofLines = requests.last?.split(separator: "\n", omittingEmptySubsequences: false).prefix { !$0.isEmpty }
        #expect(proofLines?.first == "old 3")
        #expect(proofLines?.count == 1 + MerkleProof.consistency(oldSize: 3, newSize: checkpoint.size).count)
        #expect(requests.last?.hasSuffix("\n\n" + checkpoint.note) == true)
        #expect(try await CheckpointCosignatures.lines(treeSize: checkpoint.size, on: connection).count == 1)
        let served = try #require(try await CosignedCheckpoint.latest(on: connection))
        let policy = try WitnessPolicy(witnesses: [cosigner.verifier], quorum: 1)
        let result = try #require(policy.check(note: served.note))
        #expect(result.quorumMet && result.cosigned.map(\.name) == [cosigner.name])
        #expect(try log.verifier.open(served.note) == body)
        #expect(Self.metric(resync.metrics, "authlog_log_witnessed_tree_size") == Int(checkpoint.size))
        #expect(Self.metric(resync.metrics, "authlog_witness_cosigned_tree_size") == Int(checkpoint.size))
        // Cosigned: nothing more to send until the log grows.
        try await Task.sleep(for: .milliseconds(1100))
        await resync.submitter.pass()
        #expect(await resync.script.requests.count == 2)
        await resync.runner.stop()
    }

    /// A witness that holds a checkpoint signed with the log's key which the log contradicts (it answers 422):
    /// one `audit.witness_alarm` with its answer and the checkpoint sent, the request and the answer kept as
    /// evidence; a restarted submitter (a new process) finds the alarm in the log, sends nothing and shows it; two
    /// processes refused at once record one alarm; a recorded clear lets submissions resume, and the next refusal
    /// is a new alarm.
    @Test func anAlarmIsRecordedOnceAndStandsAcrossRestartsUntilCleared() async throws {
        let (database, pool, store, checkpoint) = try await Self.signedLog(events: 30, seed: 22)
        let evidence = try scratchDirectory()
        let witness = try Self.witness("holds-a-fork")
        let refusing: @Sendable (Int64, String) -> (Int, String, String) = { _, _ in
            (422, "text/plain", "inconsistent with the checkpoint I hold\u{0}\n")
        }
        let connection = try await database.connect()
        func alarms(_ name: String) async throws -> Int64 {
            try await database.scalar(
                "SELECT count(*) FROM authlog.event_records WHERE type = 'audit.witness_alarm' AND data->>'witness' = \(name)"
            )
        }

        let first = try await self.scenario(pool: pool, witness: witness, evidence: evidence, answer: refusing)
        await first.submitter.pass()
        #expect(await first.script.requests.count == 1)
        #expect(try await alarms(witness.name) == 1)
        let recorded = try #require(
            try await connection.query(
                """
                SELECT reason, outcome, stream, data FROM authlog.event_records WHERE type = 'audit.witness_alarm'
                  AND data->>'witness' = \(witness.name)
                """
            ).first
        )
        #expect(try recorded.decode(String.self, at: 0) == "inconsistent")
        #expect(try recorded.decode(String.self, at: 1) == "failure")
        #expect(try recorded.decode(String.self, at: 2) == "audit-witness.\(witness.name)")
        let data = try recorded.decode(JSONValue.self, at: 3)
        #expect(data["tree_size"] == .number(String(checkpoint.size)))
        #expect(data["root_hash"] == .string(Data(checkpoint.root).base64EncodedString()))
        #expect(data["status"] == .number("422") && data["old_size"] == .number("0"))
        #expect(
            data["answer"] == .string("inconsistent with the checkpoint I hold\u{FFFD}\n"),
            "an answer with U+0000 is still recorded, as text; the evidence file keeps its bytes"
        )
        let request = try #require(data["evidence"]?.stringValue)
        #expect(request.hasPrefix(evidence + "/witness-alarms/witness.test_holds-a-fork-\(checkpoint.size)-"))
        #expect(try String(contentsOfFile: request, encoding: .utf8) == (await first.script.requests.first))
        let answer = try String(contentsOfFile: String(request.dropLast(8)) + ".answer", encoding: .utf8)
        #expect(answer == "HTTP 422\nContent-Type: text/plain\n\ninconsistent with the checkpoint I hold\u{0}\n")
        await first.runner.stop()

        // A restart: a new submitter on the same log sends nothing to the witness and shows the alarm.
        let restarted = try await self.scenario(pool: pool, witness: witness, answer: refusing)
        await restarted.submitter.pass()
        try await Task.sleep(for: .milliseconds(1100))
        await restarted.submitter.pass()
        #expect(await restarted.script.requests.isEmpty, "the standing alarm stops submissions after a restart")
        #expect(Self.metric(restarted.metrics, "authlog_witness_alarm") == 1)
        #expect(restarted.metrics.readiness()?["alarms"] == .array([.string(witness.name)]))
        #expect(try await alarms(witness.name) == 1, "no second event")

        // Two processes refused at once by another witness: one alarm.
        let shared = try Self.witness("seen-by-two")
        let one = try await self.scenario(pool: pool, witness: shared, answer: refusing)
        let two = try await self.scenario(pool: pool, witness: shared, answer: refusing)
        async let passOne: Void = one.submitter.pass()
        async let passTwo: Void = two.submitter.pass()
        _ = await (passOne, passTwo)
        #expect(try await alarms(shared.name) == 1)
        #expect(
            Self.metric(one.metrics, "authlog_witness_alarm") == 1
                && Self.metric(two.metrics, "authlog_witness_alarm") == 1
        )
        await one.runner.stop()
        await two.runner.stop()

        // Cleared by an operator (recorded): submissions resume, and the witness's next refusal is a new alarm.
        let cleared = try await WitnessAlarms.clear(
            witness: witness.name,
            actor: "os:tester@host",
            note: "the witness's state was restored from a backup of another log",
            into: store
        )
        #expect(cleared?.treeSize == checkpoint.size)
        #expect(
            try await WitnessAlarms.clear(witness: witness.name, actor: "os:tester@host", note: "again", into: store)
                == nil
        )
        await restarted.submitter.pass()
        #expect(await restarted.script.requests.count == 1, "asked again once cleared")
        #expect(try await alarms(witness.name) == 2, "a new refusal is a new alarm")
        #expect(
            try await database.scalar(
                "SELECT count(*) FROM authlog.event_records WHERE type = 'audit.witness_alarm_cleared' AND data->>'actor' = 'os:tester@host'"
            ) == 1
        )
        await restarted.runner.stop()
    }

    /// After a restart of a fully witnessed idle log, the witnessed size and its age come from the stored
    /// cosignatures: the size is the checkpoint's (so AuthlogCheckpointNotWitnessed, which fires on a latest
    /// checkpoint larger than the witnessed one, stays quiet) and the age counts from when the quorum was reached,
    /// not from the restart.
    /// A witness that keeps refusing (403: it no longer trusts the log's key) is an episode on the record:
    /// `audit.witness_failing` once, at the fifth failure in a row, and `audit.witness_recovered` at its next
    /// cosignature. Not one event per failed submission.
    @Test func aWitnessFailingForAWhileIsOneEpisodeOnTheRecord() async throws {
        let (database, pool, _, checkpoint) = try await Self.signedLog(events: 12, seed: 71)
        let body = try #require(NoteText(checkpoint.note)).body
        let witness = try Self.witness("refusing")
        let trusts = Mutex(false)
        let refusing = try await self.scenario(pool: pool, witness: witness) { _, _ in
            guard trusts.withLock({ $0 }) else { return (403, "text/plain", "unknown log key\n") }
            return (200, "text/plain", (try? witness.cosign(body: body, time: 1_795_600_000)) ?? "")
        }
        defer { Task { await refusing.runner.stop() } }
        func count(_ type: String) async throws -> Int64 {
            try await database.scalar("SELECT count(*) FROM authlog.event_records WHERE type = \(type)")
        }
        // Submissions back off (1, 2, 4, 8 s after the failures): the fifth is some 15 s after the first.
        let deadline = ContinuousClock.now + .seconds(40)
        while await refusing.script.requests.count < AuditWitnessFailing.threshold, ContinuousClock.now < deadline {
            await refusing.submitter.pass()
            try await Task.sleep(for: .milliseconds(250))
        }
        #expect(await refusing.script.requests.count == AuditWitnessFailing.threshold)
        #expect(try await count("audit.witness_failing") == 1)
        let failing = try #require(
            try await database.connect().query(
                """
                SELECT reason, data->>'witness', data->>'failures', data->>'last_error' FROM authlog.event_records
                WHERE type = 'audit.witness_failing'
                """
            ).rows.first
        )
        #expect(try failing.decode(String.self, at: 0) == "submission_failed")
        #expect(try failing.decode(String.self, at: 1) == witness.name)
        #expect(try failing.decode(String.self, at: 2) == "5")
        let lastError = try failing.decode(String.self, at: 3)
        #expect(lastError.contains("403"), "\(lastError)")
        trusts.withLock { $0 = true }
        let recovery = ContinuousClock.now + .seconds(40)
        while try await count("audit.witness_recovered") == 0, ContinuousClock.now < recovery {
            await refusing.submitter.pass()
            try await Task.sleep(for: .milliseconds(250))
        }
        #expect(try await count("audit.witness_recovered") == 1)
        #expect(try await count("audit.witness_failing") == 1, "one episode, one event")
    }

    @Test func aRestartOfAFullyWitnessedIdleLogKeepsTheWitnessedSizeAndAge() async throws {
        let (database, pool, _, checkpoint) = try await Self.signedLog(events: 12, seed: 23)
        let witness = try Self.witness("idle")
        let line = try witness.cosign(body: try #require(NoteText(checkpoint.note)).body, time: 1_795_600_000)
        try await database.connect().query(
            """
            INSERT INTO authlog.checkpoint_cosignatures (tree_size, witness, line, cosigned_at, received_at)
            VALUES (\(checkpoint.size), \(witness.name), \(String(line.dropLast())), to_timestamp(1795600000),
                    now() - interval '2 hours')
            """
        )
        let restarted = try await self.scenario(pool: pool, witness: witness) { _, _ in (500, "text/plain", "") }
        await restarted.submitter.pass()
        #expect(await restarted.script.requests.isEmpty, "cosigned already: nothing to send")
        #expect(Self.metric(restarted.metrics, "authlog_log_witnessed_tree_size") == Int(checkpoint.size))
        #expect(Self.metric(restarted.metrics, "authlog_log_checkpoint_tree_size") == Int(checkpoint.size))
        let age = try #require(Self.metric(restarted.metrics, "authlog_log_witnessed_age_seconds"))
        #expect((7190..<7300).contains(age), "the age counts from when the quorum was reached: \(age)")
        #expect(restarted.metrics.readiness()?["witnessed_tree_size"] == .number(String(checkpoint.size)))
        await restarted.runner.stop()
    }

    @Test func policiesAndSettingsRefuseWhatIsWrong() throws {
        // The policy text's rules are the verification core's (clients/swift, WitnessPolicyTests); here, the
        // server's OpenSSL spelling of it and the settings the server builds its policy from.
        let key = self.signer.verifier.verifierKey
        let policy = try WitnessPolicy(text: "# auditors\nwitness \(key)\nquorum 1\n")
        #expect(policy.quorum.description == "1" && policy.witnesses.map(\.name) == [self.signer.name])
        #expect(
            throws: TransparencyError(
                .invalidPolicy,
                "line 2: the witness quorum must be between 1 and the number of witnesses"
            )
        ) { try WitnessPolicy(text: "witness \(key)\nquorum 2\n") }
        // A log's note key (type 0x01) is not a cosignature key (type 0x04).
        let noteKey = try NoteSigner(name: "x.test/log", key: try PrivateKey.generate(for: .edDSA)).verifier
        #expect(throws: TransparencyError.self) { try CosignatureVerifier(verifierKey: noteKey.verifierKey) }
        func settings(_ witness: JSONValue, quorum: Int? = nil) throws -> WitnessSettings {
            var log: [(String, JSONValue)] = [("witnesses", .array([witness]))]
            if let quorum { log.append(("witness_quorum", .number(String(quorum)))) }
            return try WitnessSettings(
                configuration: try JSONValue.object([("log", .object(log))]).decode(ServerConfiguration.self),
                checkpointKey: nil
            )
        }
        func witness(name: String? = nil, url: String = "http://127.0.0.1:1", key: String? = nil) -> JSONValue {
            .object([
                ("name", .string(name ?? self.signer.name)), ("url", .string(url)),
                ("verifier_key", .string(key ?? self.signer.verifier.verifierKey)),
            ])
        }
        #expect(try settings(witness()).witnesses.first?.addCheckpointURL == "http://127.0.0.1:1/add-checkpoint")
        #expect(
            try settings(witness(url: "https://w.test/prefix/")).witnesses.first?.addCheckpointURL
                == "https://w.test/prefix/add-checkpoint"
        )
        #expect(throws: ServerConfiguration.Invalid.self) { try settings(witness(name: "other.test/w")) }
        #expect(throws: ServerConfiguration.Invalid.self) { try settings(witness(url: "ftp://w.test")) }
        #expect(throws: ServerConfiguration.Invalid.self) { try settings(witness(key: noteKey.verifierKey)) }
        #expect(throws: ServerConfiguration.Invalid.self) { try settings(witness(), quorum: 2) }
        #expect(throws: ServerConfiguration.Invalid.self) { try settings(witness(), quorum: 0) }
    }
}
