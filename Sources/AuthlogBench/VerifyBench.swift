import ArgumentParser
import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import Foundation

/// `authlog-bench verify`: `authlog verify` (the real command, as a child process) over a sealed log of real
/// events, against `COPY (SELECT …) TO STDOUT` of the same rows in the same run.
struct VerifyBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Measure authlog verify's events/s against COPY TO STDOUT of the same rows.",
        discussion: """
            Appends --events generated events (with an event key, so verify checks every MAC too) through the \
            store, seals them, then times `authlog verify` (the executable next to this one, or --authlog) and \
            the baseline: COPY of the rows verify reads (the sealed columns, each leaf's stored nodes, the \
            month and the MAC, in position order) TO STDOUT on one connection. --compare-with times a second \
            executable's verify on the same log (an older build: before and after). Goal: at least 0.5x COPY.
            """
    )

    @OptionGroup var clusterOptions: ClusterOptions

    @Option(help: "How many events the log holds.")
    var events = 1_000_000

    @Option(help: "The authlog executable to time (default: the one next to this benchmark).")
    var authlog: String?

    @Option(help: "Another authlog executable to time on the same log, such as a build from before a change.")
    var compareWith: String?

    /// The event key the log is written with and verified with (a benchmark's own, fixed).
    static let eventKey = "KioqKioqKioqKioqKioqKioqKioqKioqKioqKioqKio"

    func run() async throws {
        let cluster = try self.clusterOptions.cluster()
        let database = try await BenchDatabase.make(in: cluster)
        try await Self.fill(database, events: self.events)
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("authlog-bench-verify-\(UUID())")
        _ = FileManager.default.createFile(atPath: input.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: input) }
        var runs: [(label: String, run: ChildRun)] = []
        for (label, executable) in [("authlog verify", self.authlog ?? ServeChildren.executable)]
            + (self.compareWith.map { [("authlog verify of \($0)", $0)] } ?? [])
        {
            let run = try ChildRun.run(
                executable,
                ["verify"],
                input: input.path,
                environment: ["AUTHLOG_DATABASE_URL": database.conninfo, "AUTHLOG_EVENT_KEY": Self.eventKey]
            )
            guard run.status == 0 else { throw BenchFailure("\(label) exited \(run.status)") }
            runs.append((label, run))
        }
        let copy = try await Self.copyOut(on: try await Connection.connect(database.conninfo))
        self.report(runs, copy: copy)
    }

    /// Appends `events` generated events with the event key through the store, 4,000 a transaction, and
    /// seals them.
    static func fill(_ database: BenchDatabase, events: Int) async throws {
        let store = PostgresEventStore(
            pool: ConnectionPool(conninfo: database.conninfo, maximumConnections: 4),
            authenticator: try EventAuthenticator(base64url: Self.eventKey)
        )
        var traffic = TrafficGenerator(seed: 38)
        var appended = 0
        while appended < events {
            let chunk = Array(traffic.events(count: min(4_000, events - appended)).prefix(events - appended))
            guard let result = await store.appendTogether([AppendCommand(events: chunk)]).first else {
                throw BenchFailure("the store returned no result")
            }
            _ = try result.get()
            appended += chunk.count
            if appended % 200_000 < chunk.count { say("  \(appended) events appended") }
        }
        try await store.sealPending()
        try await Connection.connect(database.conninfo).execute("ANALYZE")
        say("log: \(events) sealed events")
    }

    /// The baseline: the rows verify reads, in its order, with COPY TO STDOUT; (rows, bytes, seconds).
    static func copyOut(on connection: Connection) async throws -> (rows: Int, bytes: Int, seconds: Double) {
        var bytes = 0
        let start = ContinuousClock.now
        let rows = try await connection.copyOut(
            SQLQuery(
                unsafeSQL: """
                    COPY (SELECT \(EventRow.exportedColumns),
                                 (SELECT l.subtree_hashes FROM authlog.log_leaves l
                                  WHERE l.position = events.position AND l.log_month = events.log_month),
                                 events.log_month::text,
                                 (SELECT r.mac FROM authlog.event_records r
                                  WHERE r.event_id = events.event_id AND r.log_month = events.log_month)
                          FROM authlog.events ORDER BY position) TO STDOUT
                    """
            )
        ) { bytes += $0.count }
        return (rows, bytes, (ContinuousClock.now - start).inSeconds)
    }

    /// Prints each timed verify, the baseline and the goal.
    private func report(
        _ runs: [(label: String, run: ChildRun)],
        copy: (rows: Int, bytes: Int, seconds: Double)
    ) {
        let copyRate = Double(copy.rows) / copy.seconds
        say(
            String(
                format:
                    "baseline COPY (SELECT … the rows verify reads) TO STDOUT: %.0f rows/s (%d rows, %.1f MB in %.2f s)",
                copyRate,
                copy.rows,
                Double(copy.bytes) / 1e6,
                copy.seconds
            )
        )
        for (label, run) in runs {
            let rate = Double(self.events) / run.seconds
            say(
                String(
                    format:
                        "%@: %.0f events/s (%.2f s, %.1f CPU s: %.1f cores busy), peak resident memory %.1f MB; %.2fx COPY %@",
                    label,
                    rate,
                    run.seconds,
                    run.cpuSeconds,
                    run.cpuSeconds / run.seconds,
                    Double(run.peakKilobytes) / 1024,
                    rate / copyRate,
                    rate / copyRate >= 0.5 ? "(goal >= 0.5x met)" : "(goal >= 0.5x NOT met)"
                )
            )
        }
    }
}
