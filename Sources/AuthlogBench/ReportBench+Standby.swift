import AuthlogCore
import AuthlogCrypto
import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import Foundation

extension ReportBench {
    /// `--standby`: what a read replica takes off the primary. A primary and a hot standby of this run's own
    /// (``PrivateCluster``), the primary filled with `--events` events and serving refreshes in this process
    /// on 16 connections. Phases of `--seconds` each: refreshes alone; then, twice in turn, refreshes while one
    /// reader runs the reports over and over on the primary, and while it runs them on the standby. Printed:
    /// the refresh rate of each phase, the reports' median time, the CPU seconds the primary's PostgreSQL
    /// processes used (what a replica takes off the primary), and the standby's lag at the end.
    func runOnStandby() async throws {
        let primary = try await PrivateCluster.start()
        defer { primary.remove() }
        let standby = try await primary.startStandby()
        defer { standby.remove() }
        let fillStart = ContinuousClock.now
        try await Self.fill(try await Connection.connect(primary.conninfo), events: self.events)
        try await primary.waitUntilCaughtUp(standby, limit: .seconds(3600))
        say(
            String(
                format: "filled %d events on the primary; the standby caught up; %.1f s",
                self.events,
                (ContinuousClock.now - fillStart).inSeconds
            )
        )
        let apple = try await FakeIdentityProvider.start()
        let server = try await ServiceBench.startServer(
            database: BenchDatabase(conninfo: primary.conninfo),
            apple: apple
        )
        let client = HTTPTestClient(baseURL: server.baseURL)
        let connections = 16
        let chains = try await TokenChains.signIn(workers: connections, through: [client])
        let duration = Duration.milliseconds(Int64(self.seconds * 1000))
        let refresh: @Sendable (Int, Int) async throws -> Bool = { worker, _ in
            try await chains.refresh(worker, through: client)
        }
        let primaryServer = ServerCPU(clusterFolder: primary.folder + "/.authlog/cluster")
        let aloneStart = primaryServer.seconds()
        let alone = try await LoadRun.run(connections: connections, for: duration, request: refresh)
        let aloneCPU = primaryServer.seconds() - aloneStart
        say("refreshes alone on the primary: \(alone.summary)")
        var results: [(place: String, load: LoadRun, rounds: [Double], primaryCPU: Double)] = []
        let places = [("primary", primary.conninfo), ("standby", standby.conninfo)]
        for (place, conninfo) in places + places {
            let reader = try await Connection.connect(conninfo)
            let cpuBefore = primaryServer.seconds()
            async let load = LoadRun.run(connections: connections, for: duration, request: refresh)
            let rounds = try await Self.reportRounds(on: reader, for: duration)
            let run = try await load
            results.append((place, run, rounds, primaryServer.seconds() - cpuBefore))
            say("refreshes while the reports run on the \(place): \(run.summary); \(rounds.count) report rounds")
        }
        let lag = try await ReplicaLag.measure(
            replica: try await Connection.connect(standby.conninfo),
            primary: try await Connection.connect(primary.conninfo)
        )
        await server.stop()
        await apple.stop()
        Self.printTable(alone: alone, aloneCPU: aloneCPU, results: results, lag: lag)
    }

    /// The report rounds (every report of ``cases`` once) run back to back on `reader` for `duration`; each
    /// round's seconds.
    static func reportRounds(on reader: Connection, for duration: Duration) async throws -> [Double] {
        var rounds: [Double] = []
        let deadline = ContinuousClock.now + duration
        while ContinuousClock.now < deadline {
            let start = ContinuousClock.now
            let now = Timestamp.now()
            for entry in Self.cases {
                let query = try ReportQuery(
                    kind: entry.kind,
                    since: now.adding(seconds: -entry.days * 86_400),
                    until: now,
                    dimensions: entry.by
                )
                _ = try await query.run(on: reader)
            }
            rounds.append((ContinuousClock.now - start).inSeconds)
        }
        return rounds
    }

    /// The phases' table and the standby's lag.
    static func printTable(
        alone: LoadRun,
        aloneCPU: Double,
        results: [(place: String, load: LoadRun, rounds: [Double], primaryCPU: Double)],
        lag: ReplicaLag
    ) {
        say("")
        say(
            "phase                                refreshes/s   vs alone   report round median ms   rounds   primary CPU s"
        )
        say(
            String(format: "refreshes alone                      %11.0f   %8.2f", alone.rate, 1.0)
                + "                        -        -   " + String(format: "%13.1f", aloneCPU)
        )
        for result in results {
            let median = result.rounds.sorted()[result.rounds.count / 2] * 1000
            say(
                "reports on the \(result.place)".padding(toLength: 37, withPad: " ", startingAt: 0)
                    + String(
                        format: "%11.0f   %8.2f   %22.1f   %6d   %13.1f",
                        result.load.rate,
                        result.load.rate / alone.rate,
                        median,
                        result.rounds.count,
                        result.primaryCPU
                    )
            )
        }
        say(
            "standby lag at the end: \(lag.bytesBehind) bytes, \(lag.milliseconds) ms; "
                + "a report round is the five reports of the plain `report` run"
        )
    }
}

/// CPU seconds used by one PostgreSQL cluster's processes (the postmaster and its children), from /proc.
struct ServerCPU {
    let clusterFolder: String

    /// User and system seconds of the postmaster named in `data/postmaster.pid` and of its children now.
    func seconds() -> Double {
        guard let pidFile = FileManager.default.contents(atPath: self.clusterFolder + "/data/postmaster.pid"),
            let postmaster = String(decoding: pidFile, as: UTF8.self).split(separator: "\n").first.flatMap({ Int($0) })
        else { return 0 }
        var ticks = 0
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int(entry),
                let stat = FileManager.default.contents(atPath: "/proc/\(entry)/stat"),
                let afterName = String(decoding: stat, as: UTF8.self).split(separator: ")").last
            else { continue }
            // After "pid (name)": state, ppid, … utime is field 14 and stime 15 of the whole line.
            let fields = afterName.split(separator: " ")
            guard fields.count > 13, let parent = Int(fields[1]), pid == postmaster || parent == postmaster,
                let user = Int(fields[11]), let system = Int(fields[12])
            else { continue }
            ticks += user + system
        }
        return Double(ticks) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
