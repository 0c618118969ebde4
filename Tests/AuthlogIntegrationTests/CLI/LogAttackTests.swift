import AuthlogCore
import AuthlogCrypto
import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import AuthlogTransparency
import Foundation
import Testing

/// The attacks of a database owner who is not the operator, against a running `authlog serve` with a
/// checkpoint key, a checkpoint directory and an event key: a forged sign-in put into the sealer's queue is
/// refused, recorded and alerted on, and a rollback of the database is refused by the signer, shown in
/// `/readyz` and `/metrics`, refused by `authlog checkpoint` and named by `authlog verify --checkpoint-dir`.
@Suite(.enabled(if: TestDatabase.isAvailable), .serialized)
struct LogAttackTests {
    @Test func aForgedQueueRowAndARollbackAreRefusedRecordedAndNamed() async throws {
        let database = try await TestDatabase.make()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("authlog-attack-\(UUID())").path
        let generated = try await CLIProcess.run(
            ["keys", "generate", "--out", folder, "--origin", "auth.test/log"],
            databaseURL: "postgresql:///unused"
        )
        #expect(generated.status == 0, "\(generated.stderr)")
        let eventKey = Base64URL.encode(try SecureRandom.bytes(count: 32))
        let notes = folder + "/notes"
        let configuration = JSONValue.object([
            (
                "log",
                .object([
                    ("origin", .string("auth.test/log")),
                    ("checkpoint_key_file", .string("\(folder)/checkpoint-ed25519.pem")),
                    ("checkpoint_directory", .string(notes)), ("checkpoint_every_events", .number("5")),
                    ("checkpoint_every_seconds", .number("1")), ("event_key", .string(eventKey)),
                ])
            )
        ])
        let configFile = folder + "/config.json"
        try Data(configuration.canonicalBytes).write(to: URL(fileURLWithPath: configFile))
        let server = try await ServeProcess.start(database: database, configuration: configuration)
        defer { server.stop() }
        let client = HTTPTestClient(baseURL: server.baseURL)
        for index in 0..<6 {
            #expect(try await client.post("/v1/signin/dev", .object([("subject", .string("u\(index)"))])).status == 200)
        }
        let signed = try await self.waitFor("a checkpoint of the 18 sign-in events") {
            try await database.scalar("SELECT coalesce(max(tree_size), 0) FROM authlog.checkpoints") >= 18
        }
        #expect(signed)

        // 1. A forged sign-in (a copy of a real one with its digest right, but no MAC) into the sealer's queue.
        let connection = try await database.connect()
        let template = try #require(
            try await EventReader().events(after: 0, limit: 50, on: connection).first {
                $0.envelope.type == .signinSucceeded
            }
        )
        var forged = template.envelope
        forged.eventID = .version7()
        forged.stream = StreamName(category: "session", id: UUID().lowercased)
        forged.streamVersion = 1
        let digest = Hex.encode(EventRow.digest(of: forged, recordedAt: template.recordedAt))
        try await connection.execute(
            SQLQuery(
                unsafeSQL: """
                    BEGIN;
                    INSERT INTO authlog.event_records (event_id, stream, stream_version, type, occurred_at,
                        recorded_at, outcome, reason, provider, user_id, session_id, client_id, ip, user_agent,
                        request_id, data, schema_version, digest, log_month)
                    SELECT '\(forged.eventID.lowercased)', '\(forged.stream.rawValue)', 1, type, occurred_at,
                        recorded_at, outcome, reason, provider, user_id, session_id, client_id, ip, user_agent,
                        request_id, data, schema_version, '\\x\(digest)', log_month
                    FROM authlog.event_records WHERE event_id = '\(template.envelope.eventID.lowercased)';
                    INSERT INTO authlog.unsealed_events (event_id, digest) VALUES ('\(forged.eventID.lowercased)', '\\x\(digest)');
                    COMMIT
                    """
            )
        )
        let refusedRecorded = try await self.waitFor("audit.events_refused") {
            try await database.scalar(
                """
                SELECT count(*) FROM authlog.events WHERE type = 'audit.events_refused' AND reason = 'mac_missing'
                  AND data->'event_ids' = jsonb_build_array(\(forged.eventID.lowercased)::text)
                """
            ) == 1
        }
        #expect(refusedRecorded, "the serve's sealer refused the forged row and recorded it")
        #expect(
            try await database.scalar(
                "SELECT count(*) FROM authlog.log_leaves WHERE event_id = \(forged.eventID.lowercased)::uuid"
            ) == 0
        )
        let metrics = String(decoding: try await client.send("GET", "/metrics").body, as: UTF8.self)
        #expect(metrics.contains("\nauthlog_events_refused_total 1\n"))
        #expect(try await client.send("GET", "/readyz").json["log"]?["refused_events"] == .number("1"))
        let keyed = ["AUTHLOG_EVENT_KEY": eventKey]
        let intact = try await CLIProcess.run(
            ["verify", "--config", configFile, "--checkpoint-dir", notes],
            databaseURL: database.conninfo,
            environment: keyed
        )
        #expect(intact.status == 0, "\(intact.stdout)\(intact.stderr)")
        #expect(intact.stdout.hasPrefix("log intact: "), "the refused row is named by the log, not stranded")

        // 2. The database rolled back behind the signer: everything after position 10 deleted, the head rewound.
        // `verify` records itself, so the signer may still be signing: wait until every queued row but the
        // refused one is sealed and the last checkpoint covers every sealed event but checkpoint records (a
        // checkpoint's own record never makes another due), so that `last` is what the signer holds.
        let settled = try await self.waitFor("the signer to cover the whole log") {
            let queued = try await database.scalar(
                "SELECT count(*) FROM authlog.unsealed_events WHERE event_id <> \(forged.eventID.lowercased)::uuid"
            )
            let unsigned = try await database.scalar(
                """
                SELECT count(*) FROM authlog.events
                WHERE position > (SELECT max(tree_size) FROM authlog.checkpoints) AND type <> 'audit.checkpoint_signed'
                """
            )
            return queued == 0 && unsigned == 0
        }
        #expect(settled)
        let last = try await database.scalar("SELECT max(tree_size) FROM authlog.checkpoints")
        var frontier = MerkleFrontier()
        for row in try await connection.query(
            "SELECT leaf_hash FROM authlog.log_leaves WHERE position <= 10 ORDER BY position"
        ).rows {
            frontier.append(leaf: try row.decode(ByteaValue.self, at: 0).bytes)
        }
        let tables = ["authlog.event_records", "authlog.log_leaves", "authlog.log_head", "authlog.checkpoints"]
        try await connection.execute(
            SQLQuery(
                unsafeSQL: """
                    BEGIN;
                    \(tables.map { "ALTER TABLE \($0) DISABLE TRIGGER USER;" }.joined(separator: "\n"))
                    DELETE FROM authlog.checkpoints WHERE tree_size > 10;
                    DELETE FROM authlog.event_records WHERE event_id IN (SELECT event_id FROM authlog.log_leaves WHERE position > 10);
                    DELETE FROM authlog.log_leaves WHERE position > 10;
                    UPDATE authlog.log_head SET size = 10, root = '\\x\(Hex.encode(frontier.root))',
                        frontier = '\\x\(Hex.encode(frontier.bytes))';
                    \(tables.map { "ALTER TABLE \($0) ENABLE TRIGGER USER;" }.joined(separator: "\n"))
                    COMMIT
                    """
            )
        )
        #expect(try await client.post("/v1/signin/dev", .object([("subject", .string("after"))])).status == 200)
        let refusing = try await self.waitFor("the signer to refuse") {
            try await client.send("GET", "/readyz").json["log"]?["checkpoint_signer"]?["state"] == .string("refusing")
        }
        #expect(refusing)
        let ready = try await client.send("GET", "/readyz")
        #expect(ready.status == 200, "sign-ins are still recorded: the server stays ready")
        #expect(ready.json["log"]?["checkpoint_signer"]?["reason"] == .string("rollback"))
        #expect(ready.json["log"]?["checkpoint_signer"]?["last_signed_size"] == .number(String(last)))
        let refusalMetrics = String(decoding: try await client.send("GET", "/metrics").body, as: UTF8.self)
        #expect(refusalMetrics.contains("\nauthlog_checkpoint_signer_refusing 1\n"))
        #expect(refusalMetrics.contains("\nauthlog_checkpoint_refusals_total{reason=\"rollback\"} "))
        // Asked every second, the signer records the contradiction once.
        try await Task.sleep(for: .seconds(3))
        #expect(
            try await database.scalar(
                "SELECT count(*) FROM authlog.event_records WHERE type = 'audit.checkpoint_refused' AND reason = 'rollback'"
            ) == 1
        )
        let signedAfter = try await database.scalar("SELECT count(*) FROM authlog.checkpoints WHERE tree_size > 10")
        let sizes = try await database.connect().query(
            "SELECT coalesce(string_agg(tree_size::text, ','), '-') FROM authlog.checkpoints"
        )
        let signedSizes = try sizes.first?.decode(String.self, at: 0) ?? "-"
        #expect(signedAfter == 0, "no checkpoint signed after the rollback: \(signedSizes)")
        let files = try FileManager.default.contentsOfDirectory(atPath: notes).filter { $0.hasPrefix("checkpoint-") }
        #expect(files.allSatisfy { (Int64($0.dropFirst(11).dropLast(5)) ?? 0) <= last }, "nothing smaller signed")

        let checkpoint = try await CLIProcess.run(
            ["checkpoint", "--config", configFile],
            databaseURL: database.conninfo,
            environment: keyed
        )
        #expect(checkpoint.status == 4)
        #expect(checkpoint.stderr.contains("refused: the log has "))
        #expect(checkpoint.stderr.contains("but this signer already signed a checkpoint of \(last) (rollback;"))
        let verified = try await CLIProcess.run(
            ["verify", "--config", configFile, "--checkpoint-dir", notes],
            databaseURL: database.conninfo,
            environment: keyed
        )
        #expect(verified.status == 1)
        // Rolled back below every note kept outside, or below a checkpoint record that the log holds (the signer
        // commits a checkpoint before it appends that checkpoint's record, so the record of the checkpoint of
        // `last` can land after the rollback, as a new event), or (once new events passed a note's size)
        // rewritten: the diagnosis depends on how far the log has grown again, and each names the tampering.
        let rolledBackBelowTheNote = verified.stdout.contains(
            ": rolled back: \(notes)/latest.note covers \(last) events but the log ends at "
        )
        let rolledBackBelowARecord =
            verified.stdout.hasPrefix("log broken at position ")
            && verified.stdout.contains(": rolled back: audit.checkpoint_signed at position ")
            && verified.stdout.contains(" covers \(last) events but the log ends at ")
        let rewritten =
            verified.stdout.hasPrefix("log broken at position ")
            && verified.stdout.contains(": rewritten: the tree of ")
        #expect(rolledBackBelowTheNote || rolledBackBelowARecord || rewritten, "\(verified.stdout)")
    }

    /// Polls `condition` for up to 30 s.
    private func waitFor(_ what: String, _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("timed out waiting for \(what)")
        return false
    }
}
