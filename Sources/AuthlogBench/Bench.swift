import ArgumentParser
import AuthlogCore
import AuthlogStore
import AuthlogTesting
import Foundation

/// `authlog-bench`: each measurement against baselines run by the same program in the same run.
@main
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "authlog-bench",
        abstract: "Measure authlog against baselines run in the same process run.",
        subcommands: [
            StoreBench.self, CryptoBench.self, ServiceBench.self, ExportBench.self, RetentionBench.self,
            ReportBench.self, LogBench.self, TilesBench.self, ClientBench.self, FloodCommand.self, AppendBench.self,
            VerifyBench.self,
        ],
        defaultSubcommand: StoreBench.self
    )
}

/// `authlog-bench store`: the event store's throughput.
struct StoreBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract:
            "Measure events sealed per second through the writers and the sealer against baselines in the same run.",
        discussion: """
            Needs a PostgreSQL cluster it may create databases in (superuser conninfo, key=value form), taken from \
            --database-url, else AUTHLOG_TEST_DATABASE_URL. `bash .ci/bench` builds in release mode, starts a private \
            cluster and runs this.
            """
    )

    @OptionGroup var clusterOptions: ClusterOptions

    @Option(help: "Seconds each measurement runs.")
    var seconds: Double = 4

    @Option(parsing: .upToNextOption, help: "Concurrent appenders to measure.")
    var appenders: [Int] = [1, 8, 32, 128]

    @Option(help: "Committed events the sealer alone seals.")
    var sealerBacklog = 1_000_000

    @Flag(help: "Break each count's WAL down by record type and relation (pg_walinspect).")
    var walDetail = false

    func run() async throws {
        let cluster = try self.clusterOptions.cluster()
        let workload = Workload.make(events: 250_000)
        say("workload: \(workload.actions.count) user actions, \(workload.eventCount) events of generated traffic")
        let duration = Duration.milliseconds(Int64(self.seconds * 1000))
        let table = try await self.measureAppenders(workload, in: cluster, for: duration)
        let baselineB = try await Measurements.plainInserts(
            workload,
            connections: 4,
            rowsPerInsert: 100,
            for: duration,
            in: try await BenchDatabase.make(in: cluster)
        )
        say(
            "baseline (b) raw 100-row INSERTs on 4 connections, no chain, no projections: \(Self.rate(baselineB)) events/s"
        )
        // The old design wrote every batch on one backend under the head lock; this is what one backend can
        // insert at all, without tree, projections or round trips between batches: its hard ceiling.
        let oneWriter = try await Measurements.plainInserts(
            workload,
            connections: 1,
            rowsPerInsert: 100,
            for: duration,
            in: try await BenchDatabase.make(in: cluster)
        )
        say("the same on 1 connection (the old design's ceiling): \(Self.rate(oneWriter)) events/s")
        let sealer = try await Measurements.sealerAlone(
            count: self.sealerBacklog,
            in: try await BenchDatabase.make(in: cluster)
        )
        say("the sealer alone over a backlog of \(self.sealerBacklog) committed events: \(Self.rate(sealer)) events/s")
        Self.printTable(table, oneWriter: oneWriter, sealer: sealer)
    }

    /// One row of the store table: events sealed per second and the two baselines at `appenders`.
    typealias Row = (
        appenders: Int, sealed: Double, a: Double, aPlus: Double, authlogCost: Footprint, aCost: Footprint,
        delayP99: Double
    )

    /// Writers and sealer, and baselines (a) and (a+), at each `--appenders` count, each on a fresh database.
    private func measureAppenders(
        _ workload: Workload,
        in cluster: String,
        for duration: Duration
    ) async throws
        -> [Row]
    {
        var table: [Row] = []
        for count in self.appenders {
            let database = try await BenchDatabase.make(in: cluster)
            var delayP99 = 0.0
            let (sealed, authlogCost) = try await Footprint.measure(cluster: cluster) {
                let sealing = try await Measurements.writersAndSealer(
                    workload,
                    appenders: count,
                    for: duration,
                    in: database
                )
                delayP99 = sealing.delayP99Milliseconds
                return sealing.rate
            }
            let baselineDatabase = try await BenchDatabase.make(in: cluster)
            let (baselineA, aCost) = try await Footprint.measure(cluster: cluster) {
                try await Measurements.plainInserts(
                    workload,
                    connections: count,
                    rowsPerInsert: 1,
                    for: duration,
                    in: baselineDatabase
                )
            }
            let baselineAPlus = try await Measurements.conventional(
                workload,
                appenders: count,
                for: duration,
                in: try await BenchDatabase.make(in: cluster)
            )
            table.append((count, sealed, baselineA, baselineAPlus, authlogCost, aCost, delayP99))
            say(
                "appenders \(count): writers + sealer \(Self.rate(sealed)) events sealed/s, "
                    + "baseline (a) one INSERT per transaction \(Self.rate(baselineA)) events/s, "
                    + "baseline (a+) one transaction per command \(Self.rate(baselineAPlus)) events/s"
            )
            say("  \(count) appenders, writers + sealer: \(authlogCost.summary)")
            say("  \(count) appenders, baseline (a): \(aCost.summary)")
            if self.walDetail {
                for (label, cost, where_) in [
                    ("authlog", authlogCost, database), ("baseline (a)", aCost, baselineDatabase),
                ] {
                    try await WALDetail.report(
                        "\(count) appenders, \(label)",
                        from: cost.walSpan.start,
                        to: cost.walSpan.end,
                        events: cost.events,
                        cluster: cluster,
                        database: where_.conninfo
                    )
                }
            }
        }
        return table
    }

    /// The table of every appender count against the baselines, and the goals (issue 37).
    private static func printTable(_ table: [Row], oneWriter: Double, sealer: Double) {
        say("")
        say("appenders  sealed ev/s  (a) ev/s  (a+) ev/s  vs (a)  vs (a+)  vs 1-connection ceiling")
        for row in table {
            say(
                Self.pad(String(row.appenders), 9) + Self.pad(Self.rate(row.sealed), 13)
                    + Self.pad(Self.rate(row.a), 10)
                    + Self.pad(Self.rate(row.aPlus), 11) + Self.pad(String(format: "%.2fx", row.sealed / row.a), 8)
                    + Self.pad(String(format: "%.2fx", row.sealed / row.aPlus), 9)
                    + Self.pad(String(format: "%.0f%%", 100 * row.sealed / oneWriter), 8)
            )
        }
        Self.printFootprints(table)
        say("")
        let delays = table.map { String(format: "%d: %.0f ms", $0.appenders, $0.delayP99) }
        let delaysMet = table.allSatisfy { $0.delayP99 < 1000 }
        say(
            "goal sealing delay p99 < 1 s at every count: " + delays.joined(separator: ", ")
                + (delaysMet ? " met" : " NOT met")
        )
        say(
            String(
                format: "goal sealer alone > 20,000 events/s: %.0f %@",
                sealer,
                sealer > 20_000 ? "met" : "NOT met"
            )
        )
    }

    /// CPU and WAL per event of authlog and baseline (a) at each count, and the goal at every count.
    private static func printFootprints(_ table: [Row]) {
        say("")
        say(
            "appenders  CPU us/event: authlog (bench + PostgreSQL)  (a) (bench + PostgreSQL)"
                + "  WAL B/event: authlog  (a)  ratio"
        )
        for row in table {
            let cost = row.authlogCost
            let base = row.aCost
            say(
                Self.pad(String(row.appenders), 9)
                    + Self.pad(String(format: "%.0f + %.0f", cost.benchMicroseconds, cost.postgresMicroseconds), 41)
                    + Self.pad(String(format: "%.0f + %.0f", base.benchMicroseconds, base.postgresMicroseconds), 26)
                    + Self.pad(String(format: "%.0f", cost.walBytes), 21)
                    + Self.pad(String(format: "%.0f", base.walBytes), 6)
                    + Self.pad(String(format: "%.2fx", cost.walBytes / max(base.walBytes, 1)), 7)
            )
        }
        let everyCount = table.map { row in
            // One appender: >= 0.7x (one commit per command where nothing else waits); from 8 up: >= 1x.
            let goal = row.appenders == 1 ? 0.7 : 1.0
            return String(
                format: "%d: %.2fx (>= %.1fx) %@",
                row.appenders,
                row.sealed / row.a,
                goal,
                row.sealed / row.a >= goal ? "met" : "NOT met"
            )
        }
        say("goal events sealed/s against baseline (a): " + everyCount.joined(separator: ", "))
        let wal = table.map { row in
            let ratio = row.authlogCost.walBytes / max(row.aCost.walBytes, 1)
            return String(format: "%d: %.2fx %@", row.appenders, ratio, ratio <= 2 ? "met" : "NOT met")
        }
        say("goal WAL per event <= 2.0x (a) at every count: " + wal.joined(separator: ", "))
    }

    static func rate(_ value: Double) -> String { String(format: "%.0f", value) }

    /// `text` right-aligned in `width` columns (left-aligned for a negative width).
    static func pad(_ text: String, _ width: Int) -> String {
        let columns = abs(width)
        guard text.count < columns else { return text + " " }
        let padding = String(repeating: " ", count: columns - text.count)
        return width < 0 ? text + padding : padding + text
    }
}

/// Writes a line to standard output at once (the results appear while the benchmark runs).
func say(_ line: String = "") {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
