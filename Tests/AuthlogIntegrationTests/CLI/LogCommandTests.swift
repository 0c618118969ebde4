import AuthlogCore
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

/// The log as an operator and an auditor meet it: `keys generate`, `serve` signing checkpoints into a
/// directory, the `/v1/log` routes, `checkpoint`, `prove` and `verify --checkpoint`, and a SIGKILL between a
/// commit and its seal.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct LogCommandTests {
    /// A fresh directory with keys made by `authlog keys generate`.
    private func keys(origin: String = "auth.test/log") async throws -> (directory: String, output: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authlog-keys-\(UUID())").path
        let generated = try await CLIProcess.run(
            ["keys", "generate", "--out", directory, "--origin", origin],
            databaseURL: "postgresql:///unused"
        )
        #expect(generated.status == 0, "\(generated.stderr)")
        return (directory, generated.stdout)
    }

    @Test func keysGenerateWritesPrivateKeysOnlyTheOwnerCanReadAndNeverOverwrites() async throws {
        let (directory, output) = try await self.keys()
        for name in ["access-token-es256.pem", "checkpoint-ed25519.pem"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: "\(directory)/\(name)")
            #expect((attributes[.posixPermissions] as? Int) == 0o600, "\(name) is 0600")
        }
        let verifierKey = try String(contentsOfFile: "\(directory)/checkpoint.vkey", encoding: .utf8)
        #expect(verifierKey.hasPrefix("auth.test/log+"))
        #expect(output.contains(verifierKey.trimmingCharacters(in: .newlines)))
        let again = try await CLIProcess.run(
            ["keys", "generate", "--out", directory],
            databaseURL: "postgresql:///unused"
        )
        #expect(again.status == 1)
        #expect(again.stderr.contains("exists; not overwriting it"))
    }

    @Test func serveSignsCheckpointsAndAnAuditorChecksThem() async throws {
        let database = try await TestDatabase.make()
        let (directory, _) = try await self.keys()
        let notes = directory + "/notes"
        let configuration = JSONValue.object([
            (
                "log",
                .object([
                    ("origin", .string("auth.test/log")),
                    ("checkpoint_key_file", .string("\(directory)/checkpoint-ed25519.pem")),
                    ("checkpoint_directory", .string(notes)), ("checkpoint_every_events", .number("10")),
                    ("checkpoint_every_seconds", .number("3600")),
                ])
            )
        ])
        let configFile = directory + "/config.json"
        try Data(configuration.canonicalBytes).write(to: URL(fileURLWithPath: configFile))
        let server = try await ServeProcess.start(database: database, configuration: configuration)
        defer { server.stop() }
        let client = HTTPTestClient(baseURL: server.baseURL)
        #expect(try await client.send("GET", "/v1/log/checkpoint").json["error"]?.stringValue == "no_checkpoint")
        for index in 0..<4 {
            let answer = try await client.post("/v1/signin/dev", .object([("subject", .string("user-\(index)"))]))
            #expect(answer.status == 200)
        }
        // Twelve events (three per sign-in) make a checkpoint due within a second.
        var served = try await client.send("GET", "/v1/log/checkpoint")
        let deadline = ContinuousClock.now + .seconds(30)
        while served.status != 200, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
            served = try await client.send("GET", "/v1/log/checkpoint")
        }
        #expect(served.status == 200)
        #expect(served.header("Content-Type") == "text/plain; charset=utf-8")
        let note = String(decoding: served.body, as: UTF8.self)
        let lines = note.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first == "auth.test/log")
        let size = try #require(Int64(lines[1]))
        #expect(size >= 10)
        #expect(lines[4].hasPrefix("\u{2014} auth.test/log "))
        #expect(try String(contentsOfFile: "\(notes)/latest.note", encoding: .utf8) == note, "written outside")
        #expect(try String(contentsOfFile: "\(notes)/checkpoint-\(size).note", encoding: .utf8) == note)
        var recorded: Int64 = 0
        while recorded == 0, ContinuousClock.now < deadline {
            recorded = try await database.scalar(
                "SELECT count(*) FROM authlog.events WHERE type = 'audit.checkpoint_signed' AND (data->>'tree_size')::bigint = \(size)"
            )
        }
        #expect(recorded == 1, "audit.checkpoint_signed records it")

        let inclusion = try await client.send("GET", "/v1/log/proof/inclusion?position=3&tree_size=\(size)")
        #expect(inclusion.status == 200)
        #expect(inclusion.json["root_hash"]?.stringValue == String(lines[2]), "the proof is against the signed root")
        #expect(inclusion.json["leaf_index"] == .number("2"))
        let consistency = try await client.send("GET", "/v1/log/proof/consistency?from=5&to=\(size)")
        #expect(consistency.status == 200)
        #expect(consistency.json["to_root_hash"]?.stringValue == String(lines[2]))
        for (path, error) in [
            ("/v1/log/proof/inclusion", "invalid_request"), ("/v1/log/proof/inclusion?position=0", "invalid_request"),
            ("/v1/log/proof/inclusion?position=-1", "invalid_request"),
            ("/v1/log/proof/inclusion?position=99999999999999999999", "invalid_request"),
            ("/v1/log/proof/inclusion?position=1&tree_size=9999", "out_of_range"),
            ("/v1/log/proof/inclusion?position=50&tree_size=10", "out_of_range"),
            ("/v1/log/proof/consistency?from=9&to=3", "out_of_range"),
            ("/v1/log/proof/consistency?from=1&to=x", "invalid_request"),
        ] {
            let answer = try await client.send("GET", path)
            #expect(answer.status == 400, "\(path)")
            #expect(answer.json["error"]?.stringValue == error, "\(path)")
        }

        // The auditor's side: a proof from the CLI, the note kept outside, verify against it.
        let eventID = try #require(
            try await database.connect().query("SELECT event_id::text FROM authlog.events WHERE position = 2").first?
                .decode(String.self, at: 0)
        )
        let proved = try await CLIProcess.run(["prove", eventID], databaseURL: database.conninfo)
        #expect(proved.status == 0, "\(proved.stderr)")
        let proof = try JSONParser().parse(Array(proved.stdout.utf8))
        #expect(proof["position"] == .number("2"))
        // The proof names the latest signed checkpoint covering the event (serve may have signed a newer one
        // than `note` by now: `prove` records its own audit.accessed), and is against its root.
        let named = try #require(proof["checkpoint"]?.stringValue, "the proof names a signed checkpoint")
        let namedLines = named.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(namedLines.first == "auth.test/log" && namedLines.count == 6, "\(named)")
        #expect((Int64(namedLines[1]) ?? 0) >= size)
        #expect(proof["tree_size"]?.canonicalText == String(namedLines[1]))
        #expect(proof["root_hash"]?.stringValue == String(namedLines[2]), "the proof is against the named root")
        let outside = directory + "/kept.note"
        try Data(note.utf8).write(to: URL(fileURLWithPath: outside))
        let verified = try await CLIProcess.run(
            ["verify", "--config", configFile, "--checkpoint", outside],
            databaseURL: database.conninfo
        )
        #expect(verified.status == 0, "\(verified.stdout) \(verified.stderr)")
        #expect(verified.stdout.hasPrefix("log intact: "))
        let byVerifierKey = try await CLIProcess.run(
            ["verify", "--verifier-key", "\(directory)/checkpoint.vkey", "--checkpoint", outside],
            databaseURL: database.conninfo
        )
        #expect(byVerifierKey.status == 0, "\(byVerifierKey.stdout)")
        // Without the key a note cannot be checked: that is a question asked without what it needs (exit 2),
        // never "log broken" (exit 1) of an intact log.
        let keyless = try await CLIProcess.run(["verify", "--checkpoint", outside], databaseURL: database.conninfo)
        #expect(keyless.status == 2, "\(keyless.stdout) \(keyless.stderr)")
        #expect(keyless.stdout.isEmpty)
        #expect(
            keyless.stderr.contains(
                "cannot check the checkpoint notes without the key that signed them: give --config with "
                    + "log.checkpoint_key_file, set AUTHLOG_CHECKPOINT_KEY, or give --verifier-key FILE"
            ),
            "\(keyless.stderr)"
        )
        let unsigned = try await CLIProcess.run(["checkpoint"], databaseURL: database.conninfo)
        #expect(
            unsigned.status == 2 && unsigned.stderr.contains("no checkpoint key: give --config"),
            "\(unsigned.stderr)"
        )
        let signed = try await CLIProcess.run(["checkpoint", "--config", configFile], databaseURL: database.conninfo)
        #expect(signed.status == 0, "\(signed.stderr)")
        #expect(signed.stdout.hasPrefix("auth.test/log\n"))
        #expect(try await database.scalar("SELECT count(*) FROM authlog.unsealed_events") == 0)
    }

    /// The server is SIGKILLed while its events are committed but cannot be sealed (the log head is locked
    /// elsewhere): the acknowledged sign-ins wait in the queue, and the next server seals them.
    @Test func aSigkillBetweenCommitAndSealLosesNothing() async throws {
        let database = try await TestDatabase.make()
        let server = try await ServeProcess.start(database: database)
        let blocker = try await database.connect()
        try await blocker.execute("BEGIN; SELECT * FROM authlog.log_head FOR UPDATE")
        let client = HTTPTestClient(baseURL: server.baseURL)
        for index in 0..<5 {
            let answer = try await client.post("/v1/signin/dev", .object([("subject", .string("killed-\(index)"))]))
            #expect(answer.status == 200, "acknowledged after commit, before the seal")
        }
        server.kill()
        #expect(try await database.scalar("SELECT count(*) FROM authlog.unsealed_events") == 15)
        try await blocker.execute("ROLLBACK")
        #expect(try await database.scalar("SELECT size FROM authlog.log_head") == 0)
        let restarted = try await ServeProcess.start(database: database)
        defer { restarted.stop() }
        let deadline = ContinuousClock.now + .seconds(30)
        while try await database.scalar("SELECT size FROM authlog.log_head") < 15, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(try await database.scalar("SELECT size FROM authlog.log_head") == 15)
        #expect(
            try await database.scalar("SELECT count(*) FROM authlog.events WHERE type = 'signin.succeeded'") == 5
        )
        let verified = try await CLIProcess.run(["verify"], databaseURL: database.conninfo)
        #expect(verified.status == 0, "\(verified.stdout)")
    }
}
