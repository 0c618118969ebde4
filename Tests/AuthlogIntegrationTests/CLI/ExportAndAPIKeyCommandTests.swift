import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

/// `authlog export` and `authlog keys create-api-key | list | revoke`.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct ExportAndAPIKeyCommandTests {
    @Test func exportPrintsJSONLinesResumesFromItsCursorAndRecordsTheRead() async throws {
        let database = try await TestDatabase.make()
        var traffic = TrafficGenerator(seed: 5)
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo))
        for _ in 0..<40 { _ = await store.appendSealed([AppendCommand(events: traffic.nextAction())]) }
        let total = try await database.scalar("SELECT size FROM authlog.log_head")

        let first = try await CLIProcess.run(
            ["export", "--after", "0", "--limit", "25"],
            databaseURL: database.conninfo
        )
        #expect(first.status == 0, "\(first.stderr)")
        let firstLines = first.stdout.split(separator: "\n")
        #expect(firstLines.count == 25)
        #expect(first.stderr.contains("next: 25"), "\(first.stderr)")

        // The first export's own audit.accessed is sealed after position `total`; the second run exports
        // everything from 25 up to its own start, which includes it.
        let rest = try await CLIProcess.run(["export", "--after", "25"], databaseURL: database.conninfo)
        #expect(rest.status == 0, "\(rest.stderr)")
        let restLines = rest.stdout.split(separator: "\n")
        let positions = try (firstLines + restLines).map { line in
            try #require(JSONParser().parse(Array(line.utf8))["position"].flatMap { Int64($0.canonicalText) })
        }
        #expect(positions == Array(1...(total + 1)), "every event once, in order, across the two runs")
        let last = try JSONParser().parse(Array(try #require(restLines.last).utf8))
        #expect(last["type"]?.stringValue == "audit.accessed", "the first export's record is exported too")
        #expect(last["data"]?["actor"]?.stringValue?.hasPrefix("os:") == true)
        #expect(last["data"]?["query"]?.stringValue == "export after=0 through=\(total) limit=25")
        #expect(last["leaf_hash"]?.stringValue?.count == 64)

        let prove = try await CLIProcess.run(
            ["prove", "--position", "3", "--tree-size", "10"],
            databaseURL: database.conninfo
        )
        #expect(prove.status == 0, "\(prove.stderr)")
        let provedRead = try await database.scalar(
            "SELECT count(*) FROM authlog.events WHERE type = 'audit.accessed' AND data->>'actor' LIKE 'os:%' AND data->>'query' = 'proof inclusion position=3 tree_size=10'"
        )
        #expect(provedRead == 1, "authlog prove records the proof it printed")
        let beyond = try await CLIProcess.run(["export", "--after", "100000"], databaseURL: database.conninfo)
        #expect(beyond.status == 1)
        #expect(beyond.stderr.contains("lies beyond it"))
        let badType = try await CLIProcess.run(["export", "--type", "nope"], databaseURL: database.conninfo)
        #expect(badType.status == 2)
        let accessed = try await database.scalar("SELECT count(*) FROM authlog.events WHERE type = 'audit.accessed'")
        #expect(accessed == 3, "one record per export and proof that read the log; refused runs read nothing")
    }

    @Test func apiKeysAreShownOnceListedWithoutTheKeyAndRevoked() async throws {
        let database = try await TestDatabase.make()
        let created = try await CLIProcess.run(
            ["keys", "create-api-key", "--name", "siem", "--scope", "audit"],
            databaseURL: database.conninfo
        )
        #expect(created.status == 0, "\(created.stderr)")
        let key = created.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(key.hasPrefix("alk_") && key.count == 47)
        let stored = try await database.scalar(
            "SELECT count(*) FROM authlog.api_keys WHERE key_hash = sha256(convert_to(\(key), 'UTF8')) AND name = 'siem'"
        )
        #expect(stored == 1, "only the SHA-256 of the key is stored")
        let again = try await CLIProcess.run(
            ["keys", "create-api-key", "--name", "siem", "--scope", "admin"],
            databaseURL: database.conninfo
        )
        #expect(again.status == 1 && again.stderr.contains("exists already"))
        let badScope = try await CLIProcess.run(
            ["keys", "create-api-key", "--name", "x", "--scope", "root"],
            databaseURL: database.conninfo
        )
        #expect(badScope.status == 2)
        // The service's role may not create keys: one sentence naming the role the work needs, no SQLSTATE.
        let service = "login_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        try await database.connect().execute(SQLQuery(unsafeSQL: "CREATE ROLE \(service) LOGIN IN ROLE authlog_app"))
        let denied = try await CLIProcess.run(
            ["keys", "create-api-key", "--name", "by-service", "--scope", "audit"],
            databaseURL: database.conninfo(asUser: String(service))
        )
        #expect(denied.status == 1)
        #expect(
            denied.stderr.hasPrefix("authlog: the database role given may not do this (PostgreSQL: permission denied")
                && denied.stderr.hasSuffix(
                    "run it with the URL of the role that owns authlog's schema (the one `authlog migrate` runs as, a "
                        + "member of authlog_owner)\n"
                ),
            "\(denied.stderr)"
        )
        #expect(!denied.stderr.contains("42501") && !denied.stderr.contains("SQLSTATE"))

        let listed = try await CLIProcess.run(["keys", "list"], databaseURL: database.conninfo)
        #expect(listed.stdout.contains("siem") && listed.stdout.contains("audit"))
        #expect(!listed.stdout.contains(key), "the key is never shown again")
        let revoked = try await CLIProcess.run(["keys", "revoke", "siem"], databaseURL: database.conninfo)
        #expect(revoked.status == 0)
        let twice = try await CLIProcess.run(["keys", "revoke", "siem"], databaseURL: database.conninfo)
        #expect(twice.status == 1)
        let after = try await CLIProcess.run(["keys", "list"], databaseURL: database.conninfo)
        let row = try #require(after.stdout.split(separator: "\n").first { $0.hasPrefix("siem") })
        #expect(!row.hasSuffix("-"), "the revocation time is listed: \(row)")
    }

    @Test func sessionsListsAUsersSessionsAndRecordsTheRead() async throws {
        let database = try await TestDatabase.make()
        var traffic = TrafficGenerator(seed: 9)
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo))
        for _ in 0..<60 { _ = await store.appendSealed([AppendCommand(events: traffic.nextAction())]) }
        let row = try #require(
            try await database.connect().query(
                "SELECT user_id::text, count(*) FROM authlog.sessions GROUP BY user_id ORDER BY count(*) DESC LIMIT 1"
            ).first
        )
        let user = try row.decode(String.self, at: 0)
        let count = try row.decode(Int64.self, at: 1)
        let listed = try await CLIProcess.run(["sessions", user], databaseURL: database.conninfo)
        #expect(listed.status == 0, "\(listed.stderr)")
        let lines = listed.stdout.split(separator: "\n")
        #expect(lines.first?.hasPrefix("session") == true, "a header")
        #expect(lines.count == Int(count) + 2, "header, rule and one line per session: \(listed.stdout)")
        let recorded = try await database.scalar(
            "SELECT count(*) FROM authlog.events WHERE type = 'audit.accessed' AND data->>'query' = \("sessions user_id=" + user)"
        )
        #expect(recorded == 1)
        let bad = try await CLIProcess.run(["sessions", "not-a-uuid"], databaseURL: database.conninfo)
        #expect(bad.status == 2)
    }
}
