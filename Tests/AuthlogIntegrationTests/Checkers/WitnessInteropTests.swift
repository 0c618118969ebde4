import AuthlogCore
import AuthlogCrypto
import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension Checkers {
    /// `authlog serve` and two `authlog witness` processes on 127.0.0.1: the log reaches its quorum of two, one
    /// witness is killed and restarted and catches up, the other is rolled back to an older state file (it answers
    /// 409 with the older size, the log resends from there with a proof, per C2SP tlog-witness), and the log's
    /// cosigned note carries cosignatures that Python's `cryptography` verifies from the specification.
    @Suite(.enabled(if: TestDatabase.isAvailable), .serialized)
    struct WitnessInteropTests {
        /// An `authlog witness` process.
        struct WitnessProcess {
            let process: Process
            let port: Int
            let logFile: String

            static func start(
                name: String,
                folder: String,
                logKey: String,
                port: Int,
                run: Int
            ) async throws -> WitnessProcess {
                let logFile = "\(folder)/witness-\(run).log"
                _ = FileManager.default.createFile(atPath: logFile, contents: nil)
                let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logFile))
                defer { try? log.close() }
                let process = Process()
                process.executableURL = URL(fileURLWithPath: CLIProcess.executable)
                process.arguments = [
                    "witness", "--listen", "127.0.0.1:\(port)", "--key", "\(folder)/witness-ed25519.pem", "--name",
                    name,
                    "--state-dir", "\(folder)/state", "--log", logKey,
                ]
                process.standardInput = FileHandle.nullDevice
                process.standardOutput = log
                process.standardError = log
                try process.run()
                if let port = try await ListeningAddress.port(loggedIn: logFile, by: process, within: .seconds(30)) {
                    return WitnessProcess(process: process, port: port, logFile: logFile)
                }
                process.terminate()
                throw CLIFixtureError(message: "the witness did not start: \(readText(atPath: logFile))")
            }

            func kill() {
                Glibc.kill(self.process.processIdentifier, SIGKILL)
                self.process.waitUntilExit()
            }

            func stop() {
                self.process.terminate()
                self.process.waitUntilExit()
            }
        }

        @Test func witnessCommandRefusesBadFlagsAndKeepsItsKeys() async throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("authlog-wflags-\(UUID())").path
            let generate = ["witness", "keys", "generate", "--out", folder, "--name", "witness.test/flags"]
            #expect(try await CLIProcess.run(generate, databaseURL: "postgresql:///unused").status == 0)
            let again = try await CLIProcess.run(generate, databaseURL: "postgresql:///unused")
            #expect(again.status == 1 && again.stderr.contains("not overwriting"))
            let base = [
                "witness", "--key", "\(folder)/witness-ed25519.pem", "--name", "witness.test/flags", "--state-dir",
                "\(folder)/state",
            ]
            let noLog = try await CLIProcess.run(base, databaseURL: "postgresql:///unused")
            #expect(noLog.status == 2, "\(noLog.stderr)")
            let badLog = try await CLIProcess.run(base + ["--log", "not+a+key"], databaseURL: "postgresql:///unused")
            #expect(badLog.status == 2 && badLog.stderr.contains("cannot start the witness"), "\(badLog.stderr)")
            let badListen = try await CLIProcess.run(
                base + ["--listen", "nowhere", "--log", "x.test/log+00000000+AQ=="],
                databaseURL: "postgresql:///unused"
            )
            #expect(badListen.status == 2, "\(badListen.stderr)")
        }

        /// `authlog witness` fed a forked checkpoint signed with the log's key (what a stolen key or a split view
        /// shows it): when `serve` submits, the witness answers 409 with its size, then 422 to the resend from there.
        /// One `audit.witness_alarm` is recorded with the witness's answer and the checkpoint sent, the request and
        /// the answer are kept in the checkpoint directory, `/readyz` and `/metrics` show the alarm, and promtool
        /// fires AuthlogWitnessAlarm on the series scraped; after a restart the alarm still stands (no second event,
        /// nothing sent to the witness) until `authlog witness-alarm clear` records who cleared it.
        @Test(.timeLimit(.minutes(4)))
        func aWitnessHoldingAForkRaisesOneAlarmThatSurvivesARestartAndPages() async throws {
            let database = try await TestDatabase.make()
            let (keys, _) = try await checkpointKeyConfiguration(named: "authlog-alarm")
            let logKey = try String(contentsOfFile: "\(keys)/checkpoint.vkey", encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("authlog-alarm-\(UUID())").path
            let name = "witness.test/forked"
            let generated = try await CLIProcess.run(
                ["witness", "keys", "generate", "--out", folder, "--name", name],
                databaseURL: "postgresql:///unused"
            )
            #expect(generated.status == 0, "\(generated.stderr)")
            let witnessKey = try String(contentsOfFile: "\(folder)/witness.vkey", encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let witness = try await WitnessProcess.start(name: name, folder: folder, logKey: logKey, port: 0, run: 0)
            defer { witness.stop() }
            // The fork: a checkpoint of 3 events with a root this log never had, signed with its key.
            let signer = try NoteSigner(
                name: "auth.test/log",
                key: try PrivateKey(pem: String(contentsOfFile: "\(keys)/checkpoint-ed25519.pem", encoding: .utf8))
            )
            let forked = try signer.sign(Checkpoint(origin: "auth.test/log", size: 3, root: SHA256.hash([3])).body)
            let fed = try await HTTPTestClient(baseURL: "http://127.0.0.1:\(witness.port)")
                .send("POST", "/add-checkpoint", body: Array("old 0\n\n\(forked)".utf8))
            #expect(fed.status == 200, "the witness cosigned the fork")

            let notes = folder + "/notes"
            let configuration = JSONValue.object([
                (
                    "log",
                    .object([
                        ("origin", .string("auth.test/log")),
                        ("checkpoint_key_file", .string("\(keys)/checkpoint-ed25519.pem")),
                        ("checkpoint_directory", .string(notes)),
                        ("checkpoint_every_events", .number("5")), ("checkpoint_every_seconds", .number("1")),
                        ("witness_interval_seconds", .number("1")),
                        (
                            "witnesses",
                            .array([
                                .object([
                                    ("name", .string(name)), ("url", .string("http://127.0.0.1:\(witness.port)")),
                                    ("verifier_key", .string(witnessKey)),
                                ])
                            ])
                        ),
                    ])
                )
            ])
            let alarms = "SELECT count(*) FROM authlog.event_records WHERE type = 'audit.witness_alarm'"
            var server = try await ServeProcess.start(
                conninfo: database.conninfo,
                logFile: "\(folder)/serve-0.log",
                configuration: configuration
            )
            var client = HTTPTestClient(baseURL: server.baseURL)
            for index in 0..<3 {
                #expect(
                    try await client.post("/v1/signin/dev", .object([("subject", .string("u\(index)"))])).status == 200
                )
            }
            let deadline = ContinuousClock.now + .seconds(45)
            while try await database.scalar(SQLQuery(unsafeSQL: alarms)) == 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(200))
            }
            try await Task.sleep(for: .seconds(3))
            #expect(try await database.scalar(SQLQuery(unsafeSQL: alarms)) == 1, "one alarm, not one per pass")
            let event = try #require(
                try await database.connect().query(
                    "SELECT reason, data FROM authlog.event_records WHERE type = 'audit.witness_alarm'"
                ).first
            )
            #expect(try event.decode(String.self, at: 0) == "inconsistent")
            let data = try event.decode(JSONValue.self, at: 1)
            #expect(
                data["witness"] == .string(name) && data["status"] == .number("422") && data["old_size"] == .number("3")
            )
            let request = try #require(data["evidence"]?.stringValue)
            #expect(request.hasPrefix(notes + "/witness-alarms/"))
            #expect(try String(contentsOfFile: request, encoding: .utf8).hasPrefix("old 3\n"))
            #expect(
                try String(contentsOfFile: String(request.dropLast(8)) + ".answer", encoding: .utf8).hasPrefix(
                    "HTTP 422\n"
                )
            )
            #expect(try await client.send("GET", "/readyz").json["witnesses"]?["alarms"] == .array([.string(name)]))
            let metrics = String(decoding: try await client.send("GET", "/metrics").body, as: UTF8.self)
            #expect(metrics.contains("\nauthlog_witness_alarm{witness=\"\(name)\"} 1\n"))
            let requestsBefore = readText(atPath: witness.logFile).components(separatedBy: "status=").count

            // A restart: the alarm stands, nothing is sent, no second event.
            server.stop()
            server = try await ServeProcess.start(
                conninfo: database.conninfo,
                logFile: "\(folder)/serve-1.log",
                configuration: configuration
            )
            defer { server.stop() }
            client = HTTPTestClient(baseURL: server.baseURL)
            #expect(try await client.post("/v1/signin/dev", .object([("subject", .string("after"))])).status == 200)
            try await Task.sleep(for: .seconds(4))
            #expect(try await database.scalar(SQLQuery(unsafeSQL: alarms)) == 1, "no second event after the restart")
            #expect(try await client.send("GET", "/readyz").json["witnesses"]?["alarms"] == .array([.string(name)]))
            let scraped = String(decoding: try await client.send("GET", "/metrics").body, as: UTF8.self)
            let alarmLine = try #require(
                scraped.split(separator: "\n").first { $0.hasPrefix("authlog_witness_alarm{") }
            )
            #expect(alarmLine == "authlog_witness_alarm{witness=\"\(name)\"} 1", "still alarmed after the restart")
            #expect(
                readText(atPath: witness.logFile).components(separatedBy: "status=").count == requestsBefore,
                "nothing sent to the witness after the restart"
            )
            if Promtool.isAvailable {
                let fired = try await AlertRulesTests.firing(
                    scrapedLine: String(alarmLine),
                    alert: "AuthlogWitnessAlarm"
                )
                #expect(fired.status == 0, "promtool: AuthlogWitnessAlarm on the scraped series: \(fired.text)")
            }

            // Cleared with a recorded command.
            let cleared = try await CLIProcess.run(
                ["witness-alarm", "clear", "--witness", name, "--note", "the fork was a test"],
                databaseURL: database.conninfo
            )
            #expect(cleared.status == 0, "\(cleared.stderr)")
            #expect(cleared.stdout.hasPrefix("cleared the alarm of \(name) (event "))
            #expect(
                try await database.scalar(
                    "SELECT count(*) FROM authlog.events WHERE type = 'audit.witness_alarm_cleared' AND data->>'note' = 'the fork was a test'"
                ) == 1
            )
        }

        @Test(.timeLimit(.minutes(4)))
        func quorumKillRestartRollbackAndPythonCheck() async throws {
            let database = try await TestDatabase.make()
            let (keys, _) = try await checkpointKeyConfiguration(named: "authlog-witness")
            let logKey = try String(contentsOfFile: "\(keys)/checkpoint.vkey", encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            var folders: [String] = []
            var witnessKeys: [String] = []
            var witnesses: [WitnessProcess] = []
            for index in 1...2 {
                let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                    "authlog-w\(index)-\(UUID())"
                )
                .path
                let generated = try await CLIProcess.run(
                    ["witness", "keys", "generate", "--out", folder, "--name", "witness.test/w\(index)"],
                    databaseURL: "postgresql:///unused"
                )
                #expect(generated.status == 0, "\(generated.stderr)")
                witnessKeys.append(
                    try String(contentsOfFile: "\(folder)/witness.vkey", encoding: .utf8)
                        .trimmingCharacters(in: .whitespacesAndNewlines)
                )
                folders.append(folder)
                witnesses.append(
                    try await WitnessProcess.start(
                        name: "witness.test/w\(index)",
                        folder: folder,
                        logKey: logKey,
                        port: 0,
                        run: 0
                    )
                )
            }
            let policy = try WitnessPolicy(
                witnesses: witnessKeys.map(CosignatureVerifier.init(verifierKey:)),
                quorum: 2
            )
            let configuration = JSONValue.object([
                (
                    "log",
                    .object([
                        ("origin", .string("auth.test/log")),
                        ("checkpoint_key_file", .string("\(keys)/checkpoint-ed25519.pem")),
                        ("checkpoint_every_events", .number("10000000")),
                        ("checkpoint_every_seconds", .number("1")),
                        ("witness_quorum", .number("2")),
                        ("witness_interval_seconds", .number("1")),
                        (
                            "witnesses",
                            .array(
                                zip(witnessKeys, witnesses).enumerated().map { index, pair in
                                    .object([
                                        ("name", .string("witness.test/w\(index + 1)")),
                                        ("url", .string("http://127.0.0.1:\(pair.1.port)")),
                                        ("verifier_key", .string(pair.0)),
                                    ])
                                }
                            )
                        ),
                    ])
                )
            ])
            let serveFolder = folders[0]
            let server = try await ServeProcess.start(
                conninfo: database.conninfo,
                logFile: "\(serveFolder)/serve.log",
                configuration: configuration
            )
            let client = HTTPTestClient(baseURL: server.baseURL)
            var signins = 0
            func signIn(_ count: Int) async throws {
                for _ in 0..<count {
                    signins += 1
                    let answer = try await client.post(
                        "/v1/signin/dev",
                        .object([("subject", .string("user-\(signins)"))])
                    )
                    #expect(answer.status == 200)
                }
            }
            /// Waits until the latest checkpoint, larger than `after`, is cosigned by both witnesses; returns its note
            /// and size.
            func waitForQuorum(_ what: String, after: Int64) async throws -> (note: String, size: Int64) {
                let deadline = Date().addingTimeInterval(45)
                while Date() < deadline {
                    let answer = try await client.send("GET", "/v1/log/checkpoint")
                    let note = String(decoding: answer.body, as: UTF8.self)
                    if answer.status == 200, let result = policy.check(note: note), result.quorumMet,
                        let body = NoteText(note)?.body, let checkpoint = Checkpoint(body: body),
                        checkpoint.size > after
                    {
                        #expect(result.invalid.isEmpty)
                        return (note, checkpoint.size)
                    }
                    try await Task.sleep(for: .milliseconds(200))
                }
                Issue.record("\(what): no quorum; serve log:\n\(readText(atPath: server.logFile).suffix(3000))")
                throw CLIFixtureError(message: "no quorum")
            }
            let started = Date()

            try await signIn(5)
            let first = try await waitForQuorum("first", after: 0)
            print(
                "quorum of 2 at size \(first.size) after \(String(format: "%.1f", Date().timeIntervalSince(started))) s"
            )
            let stateFile = try #require(
                try FileManager.default.contentsOfDirectory(atPath: "\(folders[1])/state").first {
                    $0.hasSuffix(".note")
                }
            )
            let oldState = try Data(contentsOf: URL(fileURLWithPath: "\(folders[1])/state/\(stateFile)"))

            // Witness 1 killed: the log goes on; its submissions fail and back off; restarted on its port, it
            // catches up from the state it kept.
            witnesses[0].kill()
            try await signIn(5)
            // Longer than a submission's 5 s deadline, within which the HTTP client keeps trying to connect.
            try await Task.sleep(for: .seconds(8))
            witnesses[0] = try await WitnessProcess.start(
                name: "witness.test/w1",
                folder: folders[0],
                logKey: logKey,
                port: witnesses[0].port,
                run: 1
            )
            try await signIn(5)
            let second = try await waitForQuorum("after the restart", after: first.size)
            #expect(second.size > first.size)
            let afterRestart = String(decoding: try await client.send("GET", "/metrics").body, as: UTF8.self)
            let failures = afterRestart.split(separator: "\n").first {
                $0.hasPrefix("authlog_witness_failures_total{witness=\"witness.test/w1\"}")
            }
            #expect(
                Int(failures?.split(separator: " ").last ?? "") ?? 0 > 0,
                "submissions to the killed witness failed"
            )

            // Witness 2 rolled back to its older state file: it answers the log's next submission 409 with the older
            // size (it cannot know it lost state); the log resends from that size with a proof, and it cosigns.
            witnesses[1].stop()
            try oldState.write(to: URL(fileURLWithPath: "\(folders[1])/state/\(stateFile)"))
            witnesses[1] = try await WitnessProcess.start(
                name: "witness.test/w2",
                folder: folders[1],
                logKey: logKey,
                port: witnesses[1].port,
                run: 1
            )
            try await signIn(5)
            let third = try await waitForQuorum("after the rollback", after: second.size)
            #expect(third.size > second.size)
            let rolledBackLog = readText(atPath: witnesses[1].logFile)
            #expect(rolledBackLog.contains("status=409"), "the rolled-back witness refused the first submission")
            #expect(!readText(atPath: server.logFile).contains("WITNESS ALARM"))

            // Python's cryptography verifies the log's signature and both cosignatures of the served note.
            if CosignatureCrossCheck.isAvailable {
                let checked = try await CosignatureCrossCheck.run(
                    note: third.note,
                    logKey: logKey,
                    witnessKeys: witnessKeys
                )
                print("python cosigcheck: \(checked.stdout)")
                #expect(checked.status == 0, "\(checked.stdout) \(checked.stderr)")
            }
            let metrics = String(decoding: try await client.send("GET", "/metrics").body, as: UTF8.self)
            #expect(metrics.contains("authlog_witness_cosigned_tree_size{witness=\"witness.test/w2\"}"))
            #expect(metrics.contains("authlog_log_witnessed_tree_size "))
            #expect(!metrics.contains("authlog_witness_alarm{witness=\"witness.test/w1\"} 1"))
            let ready = try await client.send("GET", "/readyz").json
            #expect(ready["witnesses"]?["alarms"] == .array([]))
            guard case .number(let witnessed) = ready["witnesses"]?["witnessed_tree_size"] else {
                Issue.record("/readyz has no witnessed_tree_size: \(ready)")
                return
            }
            #expect((Int64(witnessed) ?? 0) >= second.size, "/readyz names a witnessed size")
            let cosignatures = try await database.connect().query(
                "SELECT count(*) FROM authlog.checkpoint_cosignatures"
            )
            print("cosignatures stored: \(try cosignatures.first?.decode(Int.self, at: 0) ?? 0), sign-ins \(signins)")

            // A user's receipt of a new sign-in comes with the witnessed checkpoint that covers it, and proves the
            // event offline with the log's key and the witness policy.
            let answer = try await client.post("/v1/signin/dev", .object([("subject", .string("receipt-holder"))]))
            let token = try #require(answer.json["access_token"]?.stringValue)
            let event = try #require(answer.header("Authlog-Event-Ids")?.split(separator: ",").first.map(String.init))
            let logVerifier = try NoteVerifier(verifierKey: logKey)
            var witnessedReceipt: LogReceipt?
            let deadline = ContinuousClock.now + .seconds(60)
            while witnessedReceipt == nil, ContinuousClock.now < deadline {
                let fetched = try await client.send(
                    "GET",
                    "/v1/log/receipt/\(event)",
                    headers: [("Authorization", "Bearer \(token)")]
                )
                if fetched.status == 200 {
                    witnessedReceipt = try? LogReceipt.verify(
                        String(decoding: fetched.body, as: UTF8.self),
                        logKey: logVerifier,
                        witnesses: policy
                    ).0
                }
                if witnessedReceipt == nil { try await Task.sleep(for: .milliseconds(200)) }
            }
            #expect(witnessedReceipt != nil, "a receipt with a witnessed checkpoint")

            // verify --witness-policy names the newest witnessed checkpoint; a forged cosignature row is tampering.
            let policyFile = serveFolder + "/policy.txt"
            try (witnessKeys.map { "witness \($0)" } + ["quorum 2"]).joined(separator: "\n")
                .write(toFile: policyFile, atomically: true, encoding: .utf8)
            let configFile = "\(serveFolder)/serve.log.config.json"
            let verified = try await CLIProcess.run(
                ["verify", "--config", configFile, "--witness-policy", policyFile],
                databaseURL: database.conninfo
            )
            #expect(verified.status == 0, "\(verified.stdout)\(verified.stderr)")
            #expect(verified.stdout.contains("\nwitnessed: the checkpoint of "), "\(verified.stdout)")
            #expect(verified.stdout.contains("is cosigned by witness.test/w1, witness.test/w2 (quorum 2)"))
            let connection = try await database.connect()
            try await connection.execute(
                """
                ALTER TABLE authlog.checkpoint_cosignatures DISABLE TRIGGER USER;
                UPDATE authlog.checkpoint_cosignatures
                SET line = overlay(line PLACING CASE WHEN substr(line, length(line) - 10, 1) = 'A' THEN 'B' ELSE 'A' END
                                   FROM length(line) - 10 FOR 1)
                WHERE witness = 'witness.test/w1' AND tree_size = (SELECT min(tree_size) FROM authlog.checkpoint_cosignatures);
                ALTER TABLE authlog.checkpoint_cosignatures ENABLE TRIGGER USER
                """
            )
            let tampered = try await CLIProcess.run(
                ["verify", "--config", configFile, "--witness-policy", policyFile],
                databaseURL: database.conninfo
            )
            #expect(tampered.status == 1, "\(tampered.stdout)\(tampered.stderr)")
            #expect(
                tampered.stdout.contains("log broken: the stored cosignature of witness.test/w1 on the checkpoint of ")
            )
            server.stop()
            for witness in witnesses { witness.stop() }
        }
    }
}
