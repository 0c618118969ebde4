import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

/// Reads from a PostgreSQL read replica: a primary and a hot standby made with `pg_basebackup -R`, both the
/// test's own. Every read command and audited route answers on the standby what it answers on the primary,
/// and what it records lands on the primary with the replica's lag; a standby given as the primary is
/// refused with one sentence.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct ReplicaTests {
    /// A primary with traffic from `serve` (dev sign-ins), a signed checkpoint, an audit key, and a standby
    /// that has caught up.
    struct Setup {
        let primary: PrivateCluster
        let standby: PrivateCluster
        let configFile: String
        let apiKey: String
        let userID: String
        let checkpointSize: Int64

        func remove() {
            self.standby.remove()
            self.primary.remove()
        }
    }

    static func setUp(named name: String) async throws -> Setup {
        let primary = try await PrivateCluster.start()
        let standby = try await primary.startStandby()
        let (_, configFile) = try await checkpointKeyConfiguration(named: name)
        let key = try await CLIProcess.run(
            ["keys", "create-api-key", "--name", "auditor", "--scope", "audit"],
            databaseURL: primary.conninfo
        )
        #expect(key.status == 0, "\(key.stderr)")
        let server = try await ServeProcess.start(
            conninfo: primary.conninfo,
            logFile: FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID()).log").path
        )
        let client = HTTPTestClient(baseURL: server.baseURL)
        var userID = ""
        for index in 0..<12 {
            let answer = try await client.post("/v1/signin/dev", .object([("subject", .string("user-\(index % 4)"))]))
            #expect(answer.status == 200)
            if index == 0 { userID = answer.json["user_id"]?.stringValue ?? "" }
        }
        server.stop()
        let signed = try await CLIProcess.run(["checkpoint", "--config", configFile], databaseURL: primary.conninfo)
        #expect(signed.status == 0, "\(signed.stderr)")
        let size = try #require(Int64(signed.stdout.split(separator: "\n").dropFirst().first ?? ""))
        try await primary.waitUntilCaughtUp(standby)
        return Setup(
            primary: primary,
            standby: standby,
            configFile: configFile,
            apiKey: key.stdout.trimmingCharacters(in: .whitespacesAndNewlines),
            userID: userID,
            checkpointSize: size
        )
    }

    /// `audit.accessed` events on `cluster` read from the replica, and all of them.
    static func accessCounts(on cluster: PrivateCluster) async throws -> (replica: Int64, all: Int64) {
        let replica = try await cluster.scalar(
            """
            SELECT count(*) FROM authlog.events WHERE type = 'audit.accessed' AND data->>'read_from' = 'replica'
              AND (data->>'replica_lag_ms')::bigint >= 0 AND (data->>'replica_behind_bytes')::bigint >= 0
            """
        )
        return (replica, try await cluster.scalar("SELECT count(*) FROM authlog.events WHERE type = 'audit.accessed'"))
    }

    @Test func everyReadCommandAnswersOnTheStandbyAsOnThePrimaryAndIsRecordedOnThePrimary() async throws {
        let setup = try await Self.setUp(named: "authlog-replica-cli")
        defer { setup.remove() }
        let replica = ["--read-database-url", setup.standby.conninfo]
        let commands: [[String]] = [
            ["report", "signins", "--since", "2000-01-01", "--until", "2100-01-01", "--format", "json"],
            ["report", "sessions", "--since", "2000-01-01", "--until", "2100-01-01", "--by", "provider,day"],
            ["export", "--limit", "30"],
            ["prove", "--position", "3", "--tree-size", String(setup.checkpointSize)],
            ["sessions", setup.userID],
        ]
        for command in commands {
            let before = try await Self.accessCounts(on: setup.primary)
            let onPrimary = try await CLIProcess.run(command, databaseURL: setup.primary.conninfo)
            try await setup.primary.waitUntilCaughtUp(setup.standby)
            let onStandby = try await CLIProcess.run(command + replica, databaseURL: setup.primary.conninfo)
            #expect(onPrimary.status == 0, "\(command): \(onPrimary.stderr)")
            #expect(onStandby.status == 0, "\(command): \(onStandby.stderr)")
            #expect(!onStandby.stdout.isEmpty)
            #expect(onStandby.stdout == onPrimary.stdout, "\(command) answers the same on the standby")
            #expect(onStandby.stderr == onPrimary.stderr)
            let after = try await Self.accessCounts(on: setup.primary)
            #expect(after.all == before.all + 2, "\(command): both reads recorded on the primary")
            #expect(after.replica == before.replica + 1, "\(command): the standby's read says so, with its lag")
        }

        // With replay paused, the standby does not see what the primary takes next: the reads really are
        // the standby's.
        try await Connection.connect(setup.standby.conninfo).execute("SELECT pg_wal_replay_pause()")
        var traffic = TrafficGenerator(seed: 13)
        let appended = try await CLIProcess.run(
            ["append"],
            input: jsonLines(traffic.events(count: 5)),
            databaseURL: setup.primary.conninfo
        )
        #expect(appended.status == 0, "\(appended.stderr)")
        let behind = try await CLIProcess.run(["export"] + replica, databaseURL: setup.primary.conninfo)
        let current = try await CLIProcess.run(["export"], databaseURL: setup.primary.conninfo)
        let next = { (text: String) in Int64(text.split(separator: " ").last?.trimmingCharacters(in: .newlines) ?? "") }
        let behindNext = try #require(next(behind.stderr))
        let currentNext = try #require(next(current.stderr))
        #expect(behindNext + 5 <= currentNext, "the paused standby's export ends before the primary's")
        // A checkpoint the paused standby has not seen would make its log look truncated: the primary answers.
        let note = try await CLIProcess.run(
            ["checkpoint", "--config", setup.configFile],
            databaseURL: setup.primary.conninfo
        )
        #expect(note.status == 0, "\(note.stderr)")
        let noteFile = FileManager.default.temporaryDirectory.appendingPathComponent("replica-\(UUID()).note").path
        try Data(note.stdout.utf8).write(to: URL(fileURLWithPath: noteFile))
        let checked = try await CLIProcess.run(
            ["verify", "--config", setup.configFile, "--checkpoint", noteFile] + replica,
            databaseURL: setup.primary.conninfo
        )
        #expect(checked.status == 0, "\(checked.stdout) \(checked.stderr)")
        #expect(checked.stdout.hasPrefix("log intact: "))
        try await Connection.connect(setup.standby.conninfo).execute("SELECT pg_wal_replay_resume()")

        // verify reads every event: once caught up, the standby's verdict is the primary's head.
        try await setup.primary.waitUntilCaughtUp(setup.standby)
        let head = try await EventReader().head(on: try await Connection.connect(setup.primary.conninfo))
        let verified = try await CLIProcess.run(
            ["verify", "--config", setup.configFile] + replica,
            databaseURL: setup.primary.conninfo
        )
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(
            verified.stdout.hasPrefix(
                "log intact: \(head.size) events, root \(Data(head.root).base64EncodedString()), 2 checkpoints match"
            ),
            "\(verified.stdout)"
        )
        let recorded = try await setup.primary.scalar(
            """
            SELECT count(*) FROM authlog.events
            WHERE type = 'audit.accessed' AND data->>'query' = 'verify' AND data->>'read_from' = 'replica'
            """
        )
        #expect(recorded == 1, "verify's read from the standby is recorded on the primary")

        // The standby down: the reads go to the primary, and are recorded as the primary's.
        try setup.standby.stop()
        let before = try await Self.accessCounts(on: setup.primary)
        let report = try await CLIProcess.run(commands[0] + replica, databaseURL: setup.primary.conninfo)
        #expect(report.status == 0, "\(report.stderr)")
        #expect(try JSONParser().parse(report.stdout)["kind"]?.stringValue == "signins")
        let after = try await Self.accessCounts(on: setup.primary)
        #expect(after.all == before.all + 1 && after.replica == before.replica)
    }

    @Test func everyAuditRouteAnswersOnTheStandbyAsOnThePrimaryAndReadyzTellsTheReplicasState() async throws {
        let setup = try await Self.setUp(named: "authlog-replica-http")
        defer { setup.remove() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("authlog-replica-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let plain = try await ServeProcess.start(conninfo: setup.primary.conninfo, logFile: folder + "/plain.log")
        defer { plain.stop() }
        let reading = try await ServeProcess.start(
            conninfo: setup.primary.conninfo,
            logFile: folder + "/reading.log",
            configuration: .object([
                ("read_database_url", .string(setup.standby.conninfo)), ("read_database_max_lag_seconds", .number("1")),
            ])
        )
        defer { reading.stop() }
        let auth = [("Authorization", "Bearer \(setup.apiKey)")]
        let paths = [
            "/v1/reports/signins?since=2000-01-01&until=2100-01-01&by=provider,day",
            "/v1/reports/revocations?since=2000-01-01&until=2100-01-01&format=csv",
            "/v1/log/proof/inclusion?position=3&tree_size=\(setup.checkpointSize)",
            "/v1/log/proof/consistency?from=2&to=\(setup.checkpointSize)",
            "/v1/users/\(setup.userID)/sessions",
            "/v1/log/checkpoint",
        ]
        for path in paths {
            try await setup.primary.waitUntilCaughtUp(setup.standby)
            let fromPrimary = try await HTTPTestClient(baseURL: plain.baseURL).send("GET", path, headers: auth)
            let fromStandby = try await HTTPTestClient(baseURL: reading.baseURL).send("GET", path, headers: auth)
            #expect(fromPrimary.status == 200, "\(path)")
            #expect(fromStandby.status == 200, "\(path)")
            #expect(fromStandby.body == fromPrimary.body, "\(path) answers the same on the standby")
        }
        // An export page names the head it read: the standby's, once caught up the primary's then.
        try await setup.primary.waitUntilCaughtUp(setup.standby)
        let exported = try await HTTPTestClient(baseURL: reading.baseURL).send(
            "GET",
            "/v1/events?limit=20",
            headers: auth
        )
        let exportedOnPrimary = try await HTTPTestClient(baseURL: plain.baseURL).send(
            "GET",
            "/v1/events?limit=20",
            headers: auth
        )
        #expect(exported.json["events"] == exportedOnPrimary.json["events"])
        #expect(exported.json["events"]?.arrayValue?.count == 20)
        let recorded = try await setup.primary.scalar(
            """
            SELECT count(*) FROM authlog.events
            WHERE type = 'audit.accessed' AND data->>'actor' = 'key:auditor' AND data->>'read_from' = 'replica'
              AND (data->>'replica_lag_ms')::bigint >= 0
            """
        )
        #expect(recorded == 4, "three audited routes (the checkpoint and proofs are public, unrecorded) and the export")

        let ready = try await HTTPTestClient(baseURL: reading.baseURL).send("GET", "/readyz")
        #expect(ready.status == 200)
        #expect(ready.json["replica"]?["state"]?.stringValue == "ok", "\(String(decoding: ready.body, as: UTF8.self))")
        #expect(ready.json["replica"]?["max_lag_seconds"] == .number("1"))
        #expect(try await HTTPTestClient(baseURL: plain.baseURL).send("GET", "/readyz").json["replica"] == nil)

        // Replay paused while the primary takes a write: the replica lags, /readyz says so, and a read it
        // serves is recorded with the lag.
        try await Connection.connect(setup.standby.conninfo).execute("SELECT pg_wal_replay_pause()")
        let signin = try await HTTPTestClient(baseURL: plain.baseURL).post(
            "/v1/signin/dev",
            .object([("subject", .string("late"))])
        )
        #expect(signin.status == 200)
        try await Task.sleep(for: .milliseconds(1500))
        let lagging = try await HTTPTestClient(baseURL: reading.baseURL).send("GET", "/readyz")
        #expect(lagging.status == 200, "sign-ins never read the replica: the server stays ready")
        #expect(lagging.json["replica"]?["state"]?.stringValue == "lagging")
        let late = try await HTTPTestClient(baseURL: reading.baseURL).send("GET", paths[0], headers: auth)
        let current = try await HTTPTestClient(baseURL: plain.baseURL).send("GET", paths[0], headers: auth)
        #expect(late.status == 200)
        #expect(late.json["total"] != current.json["total"], "the paused standby has not seen the last sign-in")
        let lag = try await setup.primary.scalar(
            """
            SELECT (data->>'replica_lag_ms')::bigint FROM authlog.events
            WHERE type = 'audit.accessed' AND data->>'read_from' = 'replica' ORDER BY position DESC LIMIT 1
            """
        )
        #expect(lag >= 1000, "the lag is noted in the event")
        try await Connection.connect(setup.standby.conninfo).execute("SELECT pg_wal_replay_resume()")

        // The replica down: /readyz says so (a code, no connection details), the audited reads are answered by
        // the primary and recorded as its reads, sign-ins go on, and a server starting now starts.
        try setup.standby.stop()
        let down = try await HTTPTestClient(baseURL: reading.baseURL).send("GET", "/readyz")
        #expect(down.status == 200)
        #expect(down.json["replica"]?["state"]?.stringValue == "unavailable")
        #expect(down.json["replica"]?["error"]?.stringValue == "connection_failed")
        let fromPrimary = try await HTTPTestClient(baseURL: reading.baseURL).send("GET", paths[0], headers: auth)
        let onPrimaryNow = try await HTTPTestClient(baseURL: plain.baseURL).send("GET", paths[0], headers: auth)
        #expect(fromPrimary.status == 200)
        #expect(fromPrimary.body == onPrimaryNow.body)
        let lastRead = try await setup.primary.scalar(
            """
            SELECT count(*) FROM (SELECT data FROM authlog.events WHERE type = 'audit.accessed'
                                  ORDER BY position DESC LIMIT 2) last WHERE data ? 'read_from'
            """
        )
        #expect(lastRead == 0, "both last reads were the primary's, and recorded so")
        let stillSigningIn = try await HTTPTestClient(baseURL: reading.baseURL).post(
            "/v1/signin/dev",
            .object([("subject", .string("during"))])
        )
        #expect(stillSigningIn.status == 200)
        let startedLate = try await ServeProcess.start(
            conninfo: setup.primary.conninfo,
            logFile: folder + "/late.log",
            configuration: .object([("read_database_url", .string(setup.standby.conninfo))])
        )
        defer { startedLate.stop() }
        let lateReady = try await HTTPTestClient(baseURL: startedLate.baseURL).send("GET", "/readyz")
        #expect(lateReady.json["replica"]?["state"]?.stringValue == "unavailable")
    }

    @Test func aStandbyGivenAsThePrimaryIsRefusedWithOneSentence() async throws {
        let primary = try await PrivateCluster.start()
        defer { primary.remove() }
        let standby = try await primary.startStandby()
        defer { standby.remove() }
        let sentence =
            "authlog: the database is a read-only standby, so nothing could be recorded there: point --database-url "
            + "(AUTHLOG_DATABASE_URL) at the primary (the commands that read the log take this standby as "
            + "--read-database-url)\n"
        let commands: [[String]] = [
            ["report", "signins"], ["export"], ["verify"], ["prove", "--position", "1"],
            ["sessions", UUID().uuidString], ["serve", "--port", "0"], ["migrate"],
        ]
        for command in commands {
            let refused = try await CLIProcess.run(command, databaseURL: standby.conninfo)
            #expect(refused.status == 3, "\(command)")
            #expect(refused.stderr == sentence, "\(command): \(refused.stderr)")
            #expect(!refused.stderr.contains("SQLSTATE"))
        }

        // A replica without any primary: the read would be recorded nowhere (or in an embedded cluster).
        var environment = ProcessInfo.processInfo.environment.filter {
            $0.key != "AUTHLOG_DATABASE_URL" && !DatabaseConfiguration.libpqVariables.contains($0.key)
        }
        environment["AUTHLOG_READ_DATABASE_URL"] = standby.conninfo
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("authlog-noprimary-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let alone = try await ChildProcess.run(
            CLIProcess.executable,
            ["report", "signins"],
            environment: environment,
            in: folder
        )
        #expect(alone.status == 2)
        #expect(alone.stderr.hasPrefix("authlog: a read database needs its primary too"), "\(alone.stderr)")
        #expect(alone.stderr.split(separator: "\n").count == 1)
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/.authlog"), "no embedded cluster was started")
    }
}
