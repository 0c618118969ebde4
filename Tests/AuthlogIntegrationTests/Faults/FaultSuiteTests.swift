import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

extension Faults {
    /// Issue 8's fault suite: `authlog serve` killed with SIGKILL under load, and PostgreSQL stopped and
    /// restarted under load and while idle. Whatever happens, every request that was answered 2xx is stored
    /// as its events, the chain verifies and positions stay gapless.
    ///
    /// The PostgreSQL restarts happen on a private cluster per test (``PrivateCluster``): restarting the cluster
    /// the test script shares would break the suites running at the same time.
    @Suite(.enabled(if: TestDatabase.isAvailable), .serialized)
    struct FaultSuiteTests {
        private static func logFolder() throws -> String {
            let folder = NSTemporaryDirectory() + "authlog-fault-" + UUID().uuidString.lowercased().prefix(8)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            return folder
        }

        /// Waits until the clients have had `count` more acknowledgements than `before`, or `seconds` passed.
        private static func waitForAcknowledgements(
            _ ledger: LoadLedger,
            beyond before: Int,
            count: Int,
            seconds: Double = 30
        ) async throws {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if await ledger.sessions.count + ledger.refreshedTokens.count >= before + count { return }
                try await Task.sleep(for: .milliseconds(20))
            }
        }

        private static func acknowledged(_ ledger: LoadLedger) async -> Int {
            await ledger.sessions.count + ledger.refreshedTokens.count
        }

        /// Events committed but not yet sealed.
        private static func queuedEvents(_ conninfo: String) async throws -> Int64 {
            let connection = try await Connection.connect(conninfo)
            return try await connection.query("SELECT count(*) FROM authlog.unsealed_events").first?.decode(
                Int64.self,
                at: 0
            )
                ?? -1
        }

        /// Waits up to 15 s for a running server's sealer to empty the queue.
        private static func waitUntilQueueIsEmpty(_ conninfo: String) async throws {
            let deadline = Date().addingTimeInterval(15)
            while try await self.queuedEvents(conninfo) != 0 {
                guard Date() < deadline else {
                    Issue.record(
                        "the next server left \(try await self.queuedEvents(conninfo)) events unsealed for 15 s"
                    )
                    return
                }
                try await Task.sleep(for: .milliseconds(50))
            }
        }

        /// Asserts what the database holds against what the clients were told, and that `authlog verify` passes.
        private static func expectNothingLost(
            _ ledger: LoadLedger,
            conninfo: String,
            label: String
        ) async throws -> LedgerCheck {
            let check = try await LedgerCheck.make(ledger: ledger, conninfo: conninfo)
            let verify = try await CLIProcess.run(["verify"], databaseURL: conninfo)
            let answers = await ledger.answers
            print(
                "\(label): sign-ins acknowledged \(check.acknowledgedSignins), refreshes acknowledged "
                    + "\(check.acknowledgedRefreshes), requests \(answers.count), events \(check.events) "
                    + "(positions \(check.minimumPosition)…\(check.maximumPosition)), lost \(check.lost), "
                    + "verify exit \(verify.status)"
            )
            #expect(check.acknowledgedSignins > 0)
            #expect(check.missingSignins == 0, "every acknowledged sign-in is stored as signin.succeeded")
            #expect(
                check.missingIssuedTokens == 0,
                "every acknowledged sign-in's refresh token is stored as token.issued"
            )
            #expect(check.missingRefreshes == 0, "every acknowledged refresh is stored as token.refreshed")
            #expect(check.isGapless, "positions are 1…N without gaps")
            #expect(verify.status == 0, "authlog verify: \(verify.stdout) \(verify.stderr)")
            let serverErrors = answers.filter { ($0.status ?? 0) >= 500 && $0.status != 503 }
            #expect(serverErrors.isEmpty, "no 500: \(serverErrors.prefix(5).map { "\($0.route) \($0.status ?? 0)" })")
            return check
        }

        /// Asserts one answer given while PostgreSQL was down: 503 `database_unavailable` JSON with
        /// Retry-After, in under five seconds.
        private static func expectUnavailable(_ answer: LoadLedger.Answer?, _ what: String) {
            let status = answer?.status.map(String.init) ?? "no answer"
            #expect(answer?.status == 503, "\(what) while PostgreSQL is down: \(status)")
            #expect(answer?.errorCode == "database_unavailable", "\(what): the JSON error code")
            #expect(answer?.retryAfter != nil, "\(what): Retry-After")
            #expect((answer?.seconds ?? 99) < 5, "\(what) answered within 5 s, not \(answer?.seconds ?? 99)")
        }

        /// One probe request, recorded in `ledger`; returns its outcome and the refresh token it got, if any.
        private static func probe(
            _ route: String,
            on client: HTTPTestClient,
            ledger: LoadLedger,
            token: String? = nil
        ) async -> (LoadLedger.Answer, String?) {
            switch route {
            case "signin":
                return await LoadDriver.signin(subject: "probe", on: client, ledger: ledger)
            case "refresh":
                return await LoadDriver.refresh(token ?? "alr_missing", on: client, ledger: ledger)
            default:
                return (await LoadDriver.readiness(on: client, ledger: ledger), nil)
            }
        }

        @Test(.timeLimit(.minutes(5)))
        func tenSigkillsUnderSigninAndRefreshLoadLoseNothing() async throws {
            let database = try await TestDatabase.make()
            let folder = try Self.logFolder()
            let ledger = LoadLedger()
            let target = LoadTarget()
            let load = Task { await LoadDriver.run(clients: 32, target: target, ledger: ledger) }
            var random = SeededRandom(seed: 8)
            var kills = 0
            for cycle in 0..<10 {
                let server = try await ServeProcess.start(
                    conninfo: database.conninfo,
                    logFile: "\(folder)/serve-\(cycle).log"
                )
                let before = await Self.acknowledged(ledger)
                await target.point(at: HTTPTestClient(baseURL: server.baseURL))
                // The load is flowing through this server before the kill comes, at a random-ish moment.
                try await Self.waitForAcknowledgements(ledger, beyond: before, count: 32)
                try await Task.sleep(for: .milliseconds(Int.random(in: 50...800, using: &random)))
                server.kill()
                kills += 1
                await target.point(at: nil)
            }
            await target.stop()
            await load.value
            // The last kill can land between a commit and its seal: the next server seals what it finds queued.
            let queuedAtLastKill = try await Self.queuedEvents(database.conninfo)
            let successor = try await ServeProcess.start(
                conninfo: database.conninfo,
                logFile: "\(folder)/serve-last.log"
            )
            try await Self.waitUntilQueueIsEmpty(database.conninfo)
            successor.stop()
            print(
                "10 SIGKILLs: \(queuedAtLastKill) events committed but unsealed at the last kill, sealed by the next server"
            )
            let check = try await Self.expectNothingLost(
                ledger,
                conninfo: database.conninfo,
                label: "\(kills) SIGKILLs"
            )
            #expect(kills == 10)
            #expect(check.acknowledgedRefreshes > 0)
            try? FileManager.default.removeItem(atPath: folder)
        }

        @Test(.timeLimit(.minutes(5)))
        func theFirstRequestAfterAnIdleRestartOfPostgresSucceeds() async throws {
            let cluster = try await PrivateCluster.start()
            defer { cluster.remove() }
            let folder = try Self.logFolder()
            let server = try await ServeProcess.start(conninfo: cluster.conninfo, logFile: "\(folder)/serve.log")
            defer { server.stop() }
            let client = HTTPTestClient(baseURL: server.baseURL)
            let ledger = LoadLedger()
            // Fill the pool: a burst of 32 clients opens every connection it has; then the server idles.
            let target = LoadTarget()
            await target.point(at: client)
            let load = Task { await LoadDriver.run(clients: 32, target: target, ledger: ledger) }
            try await Self.waitForAcknowledgements(ledger, beyond: 0, count: 200)
            await target.stop()
            await load.value
            var token = await ledger.issuedTokens.last
            for route in ["signin", "readyz", "refresh"] {
                try await Task.sleep(for: .milliseconds(300))
                try await cluster.restart()
                try await Task.sleep(for: .milliseconds(300))
                // The first request after recovery, whatever it is, must not get a connection the restart broke.
                let (answer, next) = await Self.probe(route, on: client, ledger: ledger, token: token)
                #expect(
                    answer.status == 200,
                    "the first request after the restart (\(route)) succeeds: \(answer.status ?? 0)"
                )
                if route == "signin" { token = next }
            }
            _ = try await Self.expectNothingLost(ledger, conninfo: cluster.conninfo, label: "idle restarts")
            try? FileManager.default.removeItem(atPath: folder)
        }

        @Test(.timeLimit(.minutes(5)))
        func postgresStoppedUnderLoadAnswers503AndRecoversWithoutLosingAnything() async throws {
            let cluster = try await PrivateCluster.start()
            defer { cluster.remove() }
            let folder = try Self.logFolder()
            let server = try await ServeProcess.start(conninfo: cluster.conninfo, logFile: "\(folder)/serve.log")
            defer { server.stop() }
            let client = HTTPTestClient(baseURL: server.baseURL)
            let ledger = LoadLedger()
            let target = LoadTarget()
            await target.point(at: client)
            let load = Task { await LoadDriver.run(clients: 32, target: target, ledger: ledger) }
            try await Self.waitForAcknowledgements(ledger, beyond: 0, count: 100)
            let token = await ledger.issuedTokens.last

            try cluster.stop()
            let downAt = Date()
            for round in 0..<3 {
                Self.expectUnavailable(await Self.probe("signin", on: client, ledger: ledger).0, "sign-in \(round)")
                Self.expectUnavailable(
                    await Self.probe("refresh", on: client, ledger: ledger, token: token).0,
                    "refresh \(round)"
                )
                Self.expectUnavailable(await Self.probe("readyz", on: client, ledger: ledger).0, "/readyz \(round)")
                try await Task.sleep(for: .milliseconds(300))
            }
            let resumingAt = Date()
            try await cluster.resume()
            let upAt = Date()
            // Under load, without restarting authlog: the probe's first request after recovery succeeds.
            let (first, fresh) = await Self.probe("signin", on: client, ledger: ledger)
            #expect(first.status == 200, "the first sign-in after recovery succeeds: \(first.status ?? 0)")
            #expect(await Self.probe("readyz", on: client, ledger: ledger).0.status == 200)
            #expect(await Self.probe("refresh", on: client, ledger: ledger, token: fresh).0.status == 200)
            let before = await Self.acknowledged(ledger)
            try await Self.waitForAcknowledgements(ledger, beyond: before, count: 100)
            await target.stop()
            await load.value

            let answers = await ledger.answers
            let whileDown = answers.filter {
                $0.startedAt > downAt && $0.startedAt.addingTimeInterval($0.seconds) < resumingAt
            }
            let afterRecovery = answers.filter { $0.startedAt > upAt }
            print(
                "PostgreSQL stopped under load: \(whileDown.count) requests while down "
                    + "(\(whileDown.filter { $0.status == 503 }.count) × 503, slowest "
                    + "\(String(format: "%.2f", whileDown.map(\.seconds).max() ?? 0)) s), "
                    + "\(afterRecovery.count) after recovery "
                    + "(\(afterRecovery.filter { $0.status == 200 }.count) × 200)"
            )
            #expect(!whileDown.isEmpty)
            for answer in whileDown { Self.expectUnavailable(answer, "load \(answer.route)") }
            #expect(!afterRecovery.isEmpty)
            let failedAfter = afterRecovery.filter { $0.status != 200 }
            #expect(
                failedAfter.isEmpty,
                "after recovery: \(failedAfter.prefix(5).map { "\($0.route) \($0.status ?? 0)" })"
            )
            _ = try await Self.expectNothingLost(
                ledger,
                conninfo: cluster.conninfo,
                label: "PostgreSQL stopped under load"
            )
            // The outage is on the record once writing works again: one event, accounting for every 503.
            let refused = answers.filter { $0.status == 503 && $0.route != "readyz" }.count
            let database = try await Connection.connect(cluster.conninfo)
            let outages = { () async throws -> [JSONValue] in
                try await database.query(
                    "SELECT data FROM authlog.events WHERE type = 'audit.write_outage' ORDER BY position"
                ).rows.map { try $0.decode(JSONValue.self, at: 0) }
            }
            let deadline = ContinuousClock.now + .seconds(30)
            while try await outages().isEmpty, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(200))
            }
            let recorded = try await outages()
            #expect(recorded.count == 1, "\(recorded.map(\.canonicalText))")
            #expect(recorded.first?["requests_refused"]?.integerValue == Int64(refused), "\(refused) answered 503")
            try? FileManager.default.removeItem(atPath: folder)
        }
    }
}
