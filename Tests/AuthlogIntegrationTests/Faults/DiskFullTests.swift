import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension Faults {
    /// PostgreSQL refusing writes for a real full disk: the log's database sits in a tablespace on a small tmpfs
    /// that the test fills to the last byte under load, and empties again. Reads keep working, so the server is
    /// reachable throughout; `/readyz` must still fail while nothing can be recorded, recover with the writes,
    /// and the outage must be recorded once, with the requests it refused.
    @Suite(
        .enabled(
            if: TestDatabase.isAvailable
                && (SmallFilesystem.isPossible || ProcessInfo.processInfo.environment["CI"] == "true")
        ),
        .serialized
    )
    struct DiskFullTests {
        /// The answers the load got that were refused because nothing could be recorded, by the route names the
        /// server's metrics and events use.
        static func refused(_ answers: [LoadLedger.Answer]) -> [String: Int] {
            let routes = ["signin": "/v1/signin/{provider}", "refresh": "/v1/token/refresh"]
            var refused: [String: Int] = [:]
            for answer in answers where answer.status == 503 && answer.errorCode == "database_unavailable" {
                refused[routes[answer.route] ?? answer.route, default: 0] += 1
            }
            return refused
        }

        /// Polls `/readyz` every 100 ms until its status is `status` (up to `limit`); returns when it was, and the
        /// last answer.
        static func readiness(
            _ client: HTTPTestClient,
            becomes status: Int,
            within limit: Duration
        ) async -> (at: Date?, answer: HTTPTestClient.Answer?) {
            let deadline = ContinuousClock.now + limit
            var last: HTTPTestClient.Answer?
            while ContinuousClock.now < deadline {
                last = try? await client.send("GET", "/readyz")
                if last?.status == status { return (Date(), last) }
                try? await Task.sleep(for: .milliseconds(100))
            }
            return (nil, last)
        }

        static func date(_ text: String?) -> Date? {
            text.flatMap(Timestamp.init(iso8601:)).map {
                Date(timeIntervalSince1970: Double($0.microsecondsSinceEpoch) / 1_000_000)
            }
        }

        @Test(.timeLimit(.minutes(5)))
        func readinessFollowsTheWritesAndTheOutageIsRecordedOnce() async throws {
            let cluster = try await PrivateCluster.start(migrated: false)
            let owner = geteuid() == 0 ? "postgres" : NSUserName()
            let disk = try await SmallFilesystem.mount(megabytes: 96, owner: owner)
            var server: ServeProcess?
            do {
                let tablespace = disk.path + "/tablespace"
                try FileManager.default.createDirectory(atPath: tablespace, withIntermediateDirectories: false)
                try FileManager.default.setAttributes([.ownerAccountName: owner], ofItemAtPath: tablespace)
                let admin = try await Connection.connect(cluster.conninfo)
                try await admin.execute(SQLQuery(unsafeSQL: "CREATE TABLESPACE authlog_small LOCATION '\(tablespace)'"))
                try await admin.execute("CREATE DATABASE authlog_full TABLESPACE authlog_small")
                let conninfo = cluster.conninfo + " dbname=authlog_full"
                try await Migrator().migrate(on: try await Connection.connect(conninfo))
                let folder = NSTemporaryDirectory() + "authlog-diskfull-" + UUID().uuidString.lowercased().prefix(8)
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                server = try await ServeProcess.start(conninfo: conninfo, logFile: "\(folder)/serve.log")
                try await Self.run(against: try #require(server), conninfo: conninfo, disk: disk)
            } catch {
                Issue.record(error)
            }
            server?.stop()
            cluster.remove()
            await disk.remove()
        }

        static func run(against server: ServeProcess, conninfo: String, disk: SmallFilesystem) async throws {
            let client = HTTPTestClient(baseURL: server.baseURL)
            let ledger = LoadLedger()
            let target = LoadTarget()
            await target.point(at: client)
            let load = Task { await LoadDriver.run(clients: 8, target: target, ledger: ledger) }
            while await ledger.sessions.count < 50 { try await Task.sleep(for: .milliseconds(100)) }
            #expect(await Self.readiness(client, becomes: 200, within: .seconds(1)).at != nil, "ready before")

            let filledAt = Date()
            let filled = try disk.fill()
            print("filled the tablespace's filesystem with \(filled) bytes; \(disk.freeBytes) bytes free")
            let (failedAt, failing) = await Self.readiness(client, becomes: 503, within: .seconds(30))
            let notReadyAt = try #require(failedAt, "/readyz fails while nothing can be recorded")
            var firstRefusal: Date?
            for _ in 0..<100 where firstRefusal == nil {
                firstRefusal = await ledger.answers.filter { $0.status == 503 }.map(\.startedAt).min()
                try await Task.sleep(for: .milliseconds(100))
            }
            let refusedAt = try #require(firstRefusal, "sign-ins and refreshes are refused once the disk is full")
            print(
                "first refused request sent \(refusedAt.timeIntervalSince(filledAt)) s after filling; /readyz 503 "
                    + "\(notReadyAt.timeIntervalSince(filledAt)) s after filling"
            )
            #expect(notReadyAt.timeIntervalSince(filledAt) < 5, "/readyz fails within seconds of the writes")
            #expect(failing?.string("error") == "writes_failing")
            #expect(failing?.json["writes"]?["state"] == .string("failing"))
            #expect(failing?.json["writes"]?["error"] == .string("server_error 53100"), "disk full")
            #expect(failing?.header("Retry-After") == "5")
            // It stays unready while the disk stays full and the load keeps being refused.
            for _ in 0..<5 {
                try await Task.sleep(for: .seconds(1))
                #expect(try await client.send("GET", "/readyz").status == 503)
            }

            let freedAt = Date()
            try disk.empty()
            let (readyAt, _) = await Self.readiness(client, becomes: 200, within: .seconds(30))
            let recoveredAt = try #require(readyAt, "/readyz recovers with the writes")
            print("/readyz 200 again \(recoveredAt.timeIntervalSince(freedAt)) s after the space was freed")
            #expect(recoveredAt.timeIntervalSince(freedAt) < 10)
            let acknowledged = await ledger.sessions.count
            while await ledger.sessions.count < acknowledged + 50 { try await Task.sleep(for: .milliseconds(100)) }
            await target.stop()
            await load.value

            let answers = await ledger.answers
            let refused = Self.refused(answers)
            let total = refused.values.reduce(0, +)
            #expect(total > 0)
            #expect(
                answers.allSatisfy { $0.status.map { $0 < 500 || $0 == 503 } ?? false },
                "every request answered, none with 500"
            )
            let database = try await Connection.connect(conninfo)
            func outages() async throws -> [QueryRow] {
                try await database.query(
                    """
                    SELECT outcome, reason, stream, data FROM authlog.events
                    WHERE type = 'audit.write_outage' ORDER BY position
                    """
                ).rows
            }
            let deadline = ContinuousClock.now + .seconds(30)
            while try await outages().isEmpty, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(200))
            }
            // Long enough for a second outage event to appear if the outage had been cut in two.
            try await Task.sleep(for: .seconds(4))
            let rows = try await outages()
            #expect(rows.count == 1, "one outage, one event")
            let row = try #require(rows.first)
            #expect(try row.decode(String.self, at: 0) == "failure")
            #expect(try row.decode(String?.self, at: 1) == "database_unavailable")
            #expect(try row.decode(String.self, at: 2) == "audit-writes")
            let data = try row.decode(JSONValue.self, at: 3)
            #expect(data["error"] == .string("server_error 53100"))
            #expect(data["requests_refused"]?.integerValue == Int64(total), "every refused request: \(refused)")
            let routes = data["refused_routes"]
            for (route, count) in refused { #expect(routes?[route]?.integerValue == Int64(count), "\(route)") }
            let startedAt = try #require(Self.date(data["started_at"]?.stringValue))
            let endedAt = try #require(Self.date(data["ended_at"]?.stringValue))
            print(
                "outage recorded from \(startedAt.timeIntervalSince(filledAt)) s to "
                    + "\(endedAt.timeIntervalSince(filledAt)) s after filling; \(total) requests refused: \(refused)"
            )
            #expect(startedAt >= filledAt.addingTimeInterval(-0.5) && startedAt <= refusedAt.addingTimeInterval(1))
            #expect(endedAt >= freedAt.addingTimeInterval(-1) && endedAt <= recoveredAt.addingTimeInterval(1))

            let metrics = String(decoding: try await client.send("GET", "/metrics").body, as: UTF8.self)
            #expect(metrics.contains("authlog_writes_failing 0"))
            #expect(metrics.contains("authlog_write_outages_total 1"))
            #expect(metrics.contains("authlog_write_refused_requests_total \(total)"))
            let verify = try await CLIProcess.run(["verify"], databaseURL: conninfo)
            #expect(verify.status == 0, "the log is intact after the outage: \(verify.stdout) \(verify.stderr)")
        }
    }
}
