import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

/// `authlog export --month` and `authlog retention apply`: the log's oldest months are dropped as whole
/// partitions only when checkpointed and exported, and what remains still verifies and proves.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct RetentionCommandTests {
    /// A log with 30 events written in 2024-01, 20 in 2024-02, 10 in 2024-03 and 10 in the current month (the
    /// epoch is moved back by hand, as the owner, to write the old months), the checkpoint key's config, and a
    /// checkpoint note signed after the first 20 events.
    private func oldLog() async throws -> (database: TestDatabase, config: String, directory: String, early: String) {
        let database = try await TestDatabase.make()
        let (directory, config) = try await checkpointKeyConfiguration(named: "authlog-ret")

        let owner = try await database.connect()
        try await owner.execute("SELECT authlog.create_log_partitions('2024-01-01', '2024-03-01')")
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo))
        var traffic = TrafficGenerator(seed: 11)
        var early = ""
        // The checkpoint after the first 20 events records audit.checkpoint_signed: January's 30th event.
        for (month, count) in [("2024-01-01", 20), ("2024-01-01", 9), ("2024-02-01", 20), ("2024-03-01", 10)] {
            try await owner.execute("UPDATE authlog.log_epoch SET month = '\(unescaped: month)'")
            var written: Int64 = 0
            while written < count {
                let events = Array(traffic.nextAction().prefix(count - Int(written)))
                _ = try await store.appendSealed([AppendCommand(events: events)]).first?.get()
                written += Int64(events.count)
            }
            if early.isEmpty {
                let signed = try await CLIProcess.run(
                    ["checkpoint", "--config", config],
                    databaseURL: database.conninfo
                )
                #expect(signed.status == 0, "\(signed.stderr)")
                early = signed.stdout
            }
        }
        try await LogMonths.prepare(on: owner)
        for _ in 0..<4 { _ = await store.appendSealed([AppendCommand(events: traffic.nextAction())]) }
        return (database, config, directory, early)
    }

    private func positions(of month: String, _ database: TestDatabase) async throws -> (Int64, Int64) {
        let row = try #require(
            try await database.connect().query(
                "SELECT min(position), max(position) FROM authlog.log_leaves WHERE log_month = \(month)::date"
            ).first
        )
        return (try row.decode(Int64.self, at: 0), try row.decode(Int64.self, at: 1))
    }

    @Test func oldMonthsGoOnlyCheckpointedAndExportedAndTheRestStillVerifiesAndProves() async throws {
        let (database, config, directory, early) = try await self.oldLog()
        let url = database.conninfo
        let exports = directory + "/exports"
        let (_, lastOfJanuary) = try await self.positions(of: "2024-01-01", database)
        let (firstOfMarch, lastOfMarch) = try await self.positions(of: "2024-03-01", database)
        #expect(lastOfJanuary == 30 && firstOfMarch == 51 && lastOfMarch == 60, "each month one range of positions")

        let tooShort = try await CLIProcess.run(["retention", "apply", "--keep", "11months"], databaseURL: url)
        #expect(tooShort.status == 2)
        #expect(tooShort.stderr.contains("PCI DSS 10.5.1"), "\(tooShort.stderr)")

        // No checkpoint covers January yet: nothing goes.
        let unsigned = try await CLIProcess.run(
            ["retention", "apply", "--keep", "13months", "--exports", exports],
            databaseURL: url
        )
        #expect(unsigned.status == 1)
        #expect(
            unsigned.stdout.contains("no signed checkpoint covers position 30 (the latest is at 20)"),
            "\(unsigned.stdout)"
        )
        #expect(try await database.scalar("SELECT count(*) FROM authlog.log_leaves") > 60)

        let signed = try await CLIProcess.run(["checkpoint", "--config", config], databaseURL: url)
        #expect(signed.status == 0, "\(signed.stderr)")
        let keptOutside = directory + "/kept.note"
        try Data(early.utf8).write(to: URL(fileURLWithPath: keptOutside))
        // Signed, but not exported.
        let unexported = try await CLIProcess.run(
            ["retention", "apply", "--keep", "13months", "--exports", exports, "--dry-run"],
            databaseURL: url
        )
        #expect(unexported.status == 1)
        #expect(unexported.stdout.contains("no export manifest"), "\(unexported.stdout)")

        for month in ["2024-01", "2024-02", "2024-03"] {
            let exported = try await CLIProcess.run(
                ["export", "--month", month, "--output", exports],
                databaseURL: url
            )
            #expect(exported.status == 0, "\(exported.stderr)")
        }
        for name in ["authlog-events-2024-01.jsonl", "authlog-events-2024-01.manifest.json"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: exports + "/" + name)
            #expect((attributes[.posixPermissions] as? Int) == 0o600, "\(name) is for the owner only")
        }
        let january = try String(contentsOfFile: exports + "/authlog-events-2024-01.jsonl", encoding: .utf8)
        #expect(january.split(separator: "\n").count == 30)
        let current = try await CLIProcess.run(
            ["export", "--month", String(Timestamp.now().description.prefix(7)), "--output", exports],
            databaseURL: url
        )
        #expect(current.status == 1, "the current month is still being written")

        // A changed export file stops its month (and every later one); the months before it may go.
        let february = exports + "/authlog-events-2024-02.jsonl"
        let handle = try #require(FileHandle(forWritingAtPath: february))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("\n".utf8))
        try handle.close()
        let dry = try await CLIProcess.run(
            ["retention", "apply", "--keep", "13months", "--exports", exports, "--dry-run"],
            databaseURL: url
        )
        #expect(dry.status == 0, "\(dry.stdout) \(dry.stderr)")
        #expect(dry.stdout.contains("does not match its manifest's SHA-256"), "\(dry.stdout)")
        #expect(dry.stdout.contains("would drop 2024-01;"), "\(dry.stdout)")
        #expect(
            try await database.scalar("SELECT count(*) FROM authlog.log_leaves WHERE log_month = '2024-01-01'") == 30,
            "a dry run drops nothing"
        )

        let again = try await CLIProcess.run(["export", "--month", "2024-02", "--output", exports], databaseURL: url)
        #expect(again.status == 0)
        let headBefore = try await database.scalar("SELECT size FROM authlog.log_head")
        let applied = try await CLIProcess.run(
            ["retention", "apply", "--keep", "13months", "--exports", exports],
            databaseURL: url
        )
        #expect(applied.status == 0, "\(applied.stdout) \(applied.stderr)")
        #expect(applied.stdout.contains("the log now starts after position 60"), "\(applied.stdout)")
        for table in ["event_records_y2024m01", "log_leaves_y2024m02", "log_leaves_y2024m03"] {
            #expect(
                try await database.scalar("SELECT count(*) FROM pg_class WHERE relname = \(table)") == 0,
                "\(table) was dropped"
            )
        }
        #expect(try await database.scalar("SELECT min(position) FROM authlog.events") == 61)
        let recorded = try #require(
            try await database.connect().query(
                """
                SELECT data->>'actor', data->'months'->>0, data->>'last_dropped_position', data->>'dropped_events',
                       data->>'covering_checkpoint', jsonb_array_length(data->'export_hashes')
                FROM authlog.events WHERE type = 'audit.retention_applied'
                """
            ).rows.first
        )
        #expect(try recorded.decode(String.self, at: 0).hasPrefix("os:"))
        #expect(try recorded.decode(String.self, at: 1) == "2024-01")
        #expect(try recorded.decode(String.self, at: 2) == "60")
        #expect(try recorded.decode(String.self, at: 3) == "60")
        #expect(try Int64(recorded.decode(String.self, at: 4)) ?? 0 >= 60)
        #expect(try await database.scalar("SELECT count(*) FROM authlog.events WHERE position > \(headBefore)") >= 1)

        // What remains verifies from the anchor (signature included), and proves.
        // Until a checkpoint covers the run's audit.retention_applied, the anchor is unproved.
        let unproved = try await CLIProcess.run(
            ["verify", "--verifier-key", "\(directory)/checkpoint.vkey"],
            databaseURL: url
        )
        #expect(unproved.status == 1, "\(unproved.stdout)")
        #expect(unproved.stdout.contains("after the last signed checkpoint"), "\(unproved.stdout)")
        _ = try await CLIProcess.run(["checkpoint", "--config", config], databaseURL: url)
        let verified = try await CLIProcess.run(
            ["verify", "--verifier-key", "\(directory)/checkpoint.vkey"],
            databaseURL: url
        )
        #expect(verified.status == 0, "\(verified.stdout) \(verified.stderr)")
        #expect(verified.stdout.contains("from position 61 (retention dropped 1…60"), "\(verified.stdout)")
        // A note older than the retained log cannot be checked any more: verify says so instead of passing.
        let older = try await CLIProcess.run(
            ["verify", "--verifier-key", "\(directory)/checkpoint.vkey", "--checkpoint", keptOutside],
            databaseURL: url
        )
        #expect(older.status == 1)
        #expect(older.stdout.contains("predates the retained log"), "\(older.stdout) \(older.stderr)")
        _ = try await CLIProcess.run(["checkpoint", "--config", config], databaseURL: url)
        let proved = try await CLIProcess.run(["prove", "--position", "61"], databaseURL: url)
        #expect(proved.status == 0, "\(proved.stderr)")
        let proof = try JSONParser().parse(Array(proved.stdout.utf8))
        #expect(proof["position"] == .number("61"))
        let gone = try await CLIProcess.run(["prove", "--position", "12"], databaseURL: url)
        #expect(gone.status == 1)
        #expect(gone.stderr.contains("dropped by retention"), "\(gone.stderr)")

        // Reports over the dropped months say so.
        let report = try await CLIProcess.run(["report", "--since", "2024-01-01"], databaseURL: url)
        #expect(report.status == 0, "\(report.stderr)")
        #expect(report.stdout.contains("events written through 2025-"), "\(report.stdout)")
        #expect(report.stdout.contains("were retained until"), "\(report.stdout)")

        // Nothing is left to drop, and nothing is recorded twice.
        let twice = try await CLIProcess.run(
            ["retention", "apply", "--keep", "13months", "--exports", exports],
            databaseURL: url
        )
        #expect(twice.status == 0, "\(twice.stdout)")
        #expect(
            try await database.scalar("SELECT count(*) FROM authlog.events WHERE type = 'audit.retention_applied'")
                == 1
        )
        // An older run whose event went with a month a later run dropped (its event is not in the log any more)
        // is not recorded again at every run: only the newest run can lack its event.
        _ = try await database.connect().execute(
            """
            INSERT INTO authlog.log_retention (through_month, months, keep_months, last_dropped_position,
                dropped_events, frontier, tile_edge, covering_checkpoint, export_hashes, applied_at, applied_by)
            SELECT '2023-12-01', ARRAY['2023-12'], keep_months, 0, 0, frontier, tile_edge, covering_checkpoint,
                   ARRAY[''], applied_at - interval '1 year', applied_by
            FROM authlog.log_retention
            """
        )
        let thrice = try await CLIProcess.run(
            ["retention", "apply", "--keep", "13months", "--exports", exports],
            databaseURL: url
        )
        #expect(thrice.status == 0, "\(thrice.stdout)")
        #expect(!thrice.stdout.contains("recorded audit.retention_applied"), "\(thrice.stdout)")
        #expect(
            try await database.scalar("SELECT count(*) FROM authlog.events WHERE type = 'audit.retention_applied'")
                == 1
        )
        // An anchor written by hand further on, its frontier honestly computed from the stored nodes, would let
        // whoever owns the database drop or change every event below it unseen: no sealed event records it.
        let owner = try await database.connect()
        let forged = try await LogAnchor.make(size: 70, on: owner)
        _ = try await owner.query(
            """
            INSERT INTO authlog.log_retention (through_month, months, keep_months, last_dropped_position,
                dropped_events, frontier, tile_edge, covering_checkpoint, export_hashes, applied_at, applied_by)
            VALUES ('2024-03-01', ARRAY['2024-02'], 13, 70, 10, \(ByteaValue(forged.frontier.bytes)),
                    \(forged.edge.map { ByteaValue($0.bytes) }), 70, ARRAY[''], now(), 'forger')
            """
        )
        let moved = try await CLIProcess.run(
            ["verify", "--verifier-key", "\(directory)/checkpoint.vkey"],
            databaseURL: url
        )
        #expect(moved.status == 1, "\(moved.stdout)")
        #expect(
            moved.stdout.contains(
                "log broken at position 71: the retention anchor at 70 (authlog.log_retention) is on no record"
            ),
            "\(moved.stdout)"
        )
    }
}
