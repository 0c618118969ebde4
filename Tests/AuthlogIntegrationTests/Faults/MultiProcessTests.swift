import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

extension Faults {
    /// Three `authlog serve` processes on one database under 32-way sign-in and refresh load for 30 s, one of
    /// them SIGKILLed a third of the way in: the writers, sealers, checkpoint signers, session sweepers and
    /// revocation retries of the three take turns or divide the work, and nothing is lost or done twice.
    @Suite(.enabled(if: TestDatabase.isAvailable), .serialized)
    struct MultiProcessTests {
        static let checkpointSeconds = 5

        @Test(.timeLimit(.minutes(5)))
        func threeServersUnderLoadOneKilledDoEverythingOnce() async throws {
            let database = try await TestDatabase.make()
            let folder = NSTemporaryDirectory() + "authlog-multi-" + UUID().uuidString.lowercased().prefix(8)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let (keys, _) = try await checkpointKeyConfiguration(named: "authlog-multi")
            let lifetimes: [(String, JSONValue)] = [
                (
                    "refresh_token",
                    .object([("session_idle_seconds", .number("4")), ("remember_me_idle_seconds", .number("4"))])
                ),
                ("account", .object([("revocation_retry_seconds", .number("1"))])),
            ]
            let configuration = JSONValue.object(
                lifetimes + [
                    (
                        "log",
                        .object([
                            ("origin", .string("auth.test/log")),
                            ("checkpoint_key_file", .string("\(keys)/checkpoint-ed25519.pem")),
                            ("checkpoint_directory", .string("\(folder)/notes")),
                            ("checkpoint_every_events", .number("10000000")),
                            ("checkpoint_every_seconds", .number(String(Self.checkpointSeconds))),
                        ])
                    )
                ]
            )

            // Work due before the servers start, so that their first passes race for it: sessions past their idle
            // lifetime, and provider revocations of deleted users.
            let seeding = try await ServeProcess.start(
                conninfo: database.conninfo,
                logFile: "\(folder)/seed.log",
                configuration: .object(lifetimes)  // no checkpoint key: the first checkpoint comes with the load
            )
            let seeder = HTTPTestClient(baseURL: seeding.baseURL)
            var idleSessions: [String] = []
            for index in 0..<40 {
                let answer = try await seeder.post("/v1/signin/dev", .object([("subject", .string("idle-\(index)"))]))
                idleSessions.append(answer.json["session_id"]?.stringValue ?? "")
            }
            var deletedUsers: [String] = []
            for index in 0..<20 {
                let answer = try await seeder.post("/v1/signin/dev", .object([("subject", .string("gone-\(index)"))]))
                let token = answer.json["access_token"]?.stringValue ?? ""
                let deleted = try await seeder.send("DELETE", "/v1/me", headers: [("Authorization", "Bearer \(token)")])
                #expect(deleted.status == 202)
                deletedUsers.append(answer.json["user_id"]?.stringValue ?? "")
            }
            seeding.stop()
            #expect(Set(idleSessions).count == 40 && Set(deletedUsers).count == 20)
            // The dev provider keeps no credential: each retry ends `abandoned` ("credential cannot be opened"),
            // which is one attempt, recorded once, like any other outcome.
            try await database.connect().execute(
                """
                INSERT INTO authlog.provider_revocations
                    (user_id, provider, subject_hash, sealed_token, state, attempts, next_attempt_at, created_at)
                SELECT user_id, 'dev', 'seeded', '\\x00'::bytea, 'pending', 0, now(), now()
                FROM authlog.users WHERE status = 'deleted'
                """
            )
            try await Task.sleep(for: .seconds(5))  // the idle sessions pass their 4 s lifetime

            var servers: [ServeProcess] = []
            for index in 0..<3 {
                servers.append(
                    try await ServeProcess.start(
                        conninfo: database.conninfo,
                        logFile: "\(folder)/serve-\(index).log",
                        configuration: configuration
                    )
                )
            }
            let ledger = LoadLedger()
            let targets = [LoadTarget(), LoadTarget(), LoadTarget()]
            for (target, server) in zip(targets, servers) {
                await target.point(at: HTTPTestClient(baseURL: server.baseURL))
            }
            let loads = zip(targets, [11, 11, 10]).map { target, clients in
                Task { await LoadDriver.run(clients: clients, target: target, ledger: ledger) }
            }
            try await Task.sleep(for: .seconds(10))
            servers[1].kill()
            // The load balancer sends the killed server's clients to the first.
            await targets[1].point(at: HTTPTestClient(baseURL: servers[0].baseURL))
            try await Task.sleep(for: .seconds(20))
            for target in targets { await target.stop() }
            for load in loads { await load.value }
            servers[0].stop()
            servers[2].stop()

            let check = try await LedgerCheck.make(ledger: ledger, conninfo: database.conninfo)
            let verify = try await CLIProcess.run(
                ["verify", "--config", "\(folder)/serve-0.log.config.json"],
                databaseURL: database.conninfo
            )
            let answers = await ledger.answers
            print(
                "3 servers, 1 SIGKILLed: sign-ins acknowledged \(check.acknowledgedSignins), refreshes acknowledged "
                    + "\(check.acknowledgedRefreshes), requests \(answers.count), events \(check.events), lost \(check.lost), "
                    + "verify exit \(verify.status)"
            )
            #expect(check.acknowledgedSignins > 100 && check.acknowledgedRefreshes > 100)
            #expect(check.lost == 0, "every acknowledged sign-in, token and refresh is stored")
            #expect(check.isGapless, "positions are 1…N without gaps")
            #expect(verify.status == 0, "\(verify.stdout) \(verify.stderr)")
            let serverErrors = answers.filter { ($0.status ?? 0) >= 500 }
            #expect(serverErrors.isEmpty, "no 5xx: \(serverErrors.prefix(5).map { "\($0.route) \($0.status ?? 0)" })")

            // Exactly one checkpoint per interval, whichever server signed it.
            let signed = try await database.connect().query(
                """
                SELECT extract(epoch FROM signed_at - lag(signed_at) OVER (ORDER BY tree_size))::float8
                FROM authlog.checkpoints ORDER BY tree_size
                """
            ).rows.compactMap { try $0.decode(Double?.self, at: 0) }
            print("checkpoints \(signed.count + 1), seconds apart: \(signed.map { String(format: "%.2f", $0) })")
            #expect(signed.count >= 4, "a checkpoint every \(Self.checkpointSeconds) s while the load ran")
            #expect(signed.allSatisfy { $0 >= Double(Self.checkpointSeconds) }, "never two in one interval")
            #expect(signed.allSatisfy { $0 < Double(Self.checkpointSeconds) + 3 }, "and none skipped")
            let recordedCheckpoints = try await database.scalar(
                "SELECT count(*) FROM authlog.events WHERE type = 'audit.checkpoint_signed'"
            )
            #expect(recordedCheckpoints == Int64(signed.count + 1), "each recorded once")

            // Every seeded expiry and revocation retry happened exactly once.
            let expiries = try await database.connect().query(
                """
                SELECT s, (SELECT count(*) FROM authlog.events WHERE type = 'session.expired' AND session_id = s::uuid)
                FROM unnest(\(ArrayLiteral(idleSessions))::text[]) s
                """
            ).rows.map { try $0.decode(Int64.self, at: 1) }
            #expect(expiries == Array(repeating: 1, count: 40), "each idle session expired exactly once")
            #expect(
                try await database.scalar(
                    """
                    SELECT count(*) FROM (SELECT session_id FROM authlog.events WHERE type = 'session.expired'
                                          GROUP BY session_id HAVING count(*) > 1) twice
                    """
                ) == 0,
                "no session of the load expired twice either"
            )
            let attempts = try await database.connect().query(
                """
                SELECT u, (SELECT count(*) FROM authlog.events WHERE type = 'provider.revocation_attempted'
                                                                   AND user_id = u::uuid AND provider = 'dev')
                FROM unnest(\(ArrayLiteral(deletedUsers))::text[]) u
                """
            ).rows.map { try $0.decode(Int64.self, at: 1) }
            #expect(attempts == Array(repeating: 1, count: 20), "each due revocation was attempted exactly once")
            #expect(
                try await database.scalar(
                    "SELECT count(*) FROM authlog.provider_revocations WHERE provider = 'dev' AND state = 'abandoned' AND attempts = 1"
                ) == 20
            )
            try? FileManager.default.removeItem(atPath: folder)
        }
    }
}
