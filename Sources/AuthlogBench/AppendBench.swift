import ArgumentParser
import AuthlogPostgres
import AuthlogTesting
import Foundation

/// `authlog-bench append`: `authlog append` (the real command, as a child process) on generated JSON lines,
/// its events per second and its peak memory, against `COPY … FROM STDIN` of the same rows into a table of
/// the same shape in the same run.
struct AppendBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "append",
        abstract: "Measure authlog append's events/s and peak memory against COPY FROM of the same rows.",
        discussion: """
            Writes --events generated events (sign-ins, refreshes, registrations: realistic sizes) as JSON lines \
            into a file in $TMPDIR, pipes it into `authlog append` (the executable next to this one) on a fresh \
            database, and reads the child's own peak resident memory (VmHWM) while it runs. The baseline \
            copies the rows authlog stored (COPY (SELECT * FROM authlog.event_records) TO a file) into a \
            table LIKE authlog.event_records INCLUDING ALL (its columns, defaults and indexes, not partitioned) \
            with psql's COPY FROM STDIN (psql from AUTHLOG_TEST_PG_BIN when it is there, else /usr/bin/psql). Goal: at least \
            0.3x the COPY rate, with memory bounded by a batch.
            """
    )

    @OptionGroup var clusterOptions: ClusterOptions

    @Option(help: "How many events to append.")
    var events = 2_000_000

    @Option(help: "authlog append's --batch-size (its default when not given).")
    var batchSize: Int?

    @Option(help: "The authlog executable to time (default: the one next to this benchmark).")
    var authlog: String?

    func run() async throws {
        let cluster = try self.clusterOptions.cluster()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("authlog-bench-append-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("events.jsonl").path
        let inputBytes = try Self.writeEvents(self.events, to: input)
        say(String(format: "input: %d events, %.1f MB of JSON lines", self.events, Double(inputBytes) / 1e6))

        let database = try await BenchDatabase.make(in: cluster)
        let arguments = ["append"] + (self.batchSize.map { ["--batch-size", "\($0)"] } ?? [])
        let append = try ChildRun.run(
            self.authlog ?? ServeChildren.executable,
            arguments,
            input: input,
            environment: ["AUTHLOG_DATABASE_URL": database.conninfo]
        )
        let connection = try await Connection.connect(database.conninfo)
        let stored =
            try await connection.query("SELECT count(*) FROM authlog.event_records").rows.first?
            .decode(Int64.self, at: 0) ?? 0
        guard append.status == 0, stored == Int64(self.events) else {
            throw BenchFailure("authlog append exited \(append.status) with \(stored) events stored")
        }
        self.reportAppend(append)
        let rows = folder.appendingPathComponent("rows.copy").path
        let rowBytes = try await Self.copyRows(on: connection, to: rows)
        try await connection.execute(
            "CREATE TABLE public.copy_target (LIKE authlog.event_records INCLUDING ALL)"
        )
        let copy = try ChildRun.run(
            Self.psql,
            ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-c", "COPY public.copy_target FROM STDIN", database.conninfo],
            input: rows
        )
        let copied =
            try await connection.query("SELECT count(*) FROM public.copy_target").rows.first?
            .decode(Int64.self, at: 0) ?? 0
        guard copy.status == 0, copied == stored else {
            throw BenchFailure("COPY FROM exited \(copy.status) with \(copied) rows copied")
        }
        self.reportCopy(copy, against: append, rowBytes: rowBytes)
    }

    /// psql next to the cluster's binaries (`.ci/test-postgres` sets AUTHLOG_TEST_PG_BIN) when it is there,
    /// else /usr/bin/psql (AUTHLOG_TEST_PG_BIN may name a folder of wrappers without psql).
    static var psql: String {
        let next = ProcessInfo.processInfo.environment["AUTHLOG_TEST_PG_BIN"].map { $0 + "/psql" }
        return next.flatMap { FileManager.default.isExecutableFile(atPath: $0) ? $0 : nil } ?? "/usr/bin/psql"
    }

    /// Writes `count` generated events as JSON lines to `path`, a few thousand at a time; returns the bytes.
    static func writeEvents(_ count: Int, to path: String) throws -> Int {
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw BenchFailure("cannot create \(path)")
        }
        let file = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? file.close() }
        var traffic = TrafficGenerator(seed: 37)
        var written = 0
        var bytes = 0
        while written < count {
            let events = traffic.events(count: min(5_000, count - written)).prefix(count - written)
            let text = Data(IngestLines.text(Array(events)).utf8)
            try file.write(contentsOf: text)
            written += events.count
            bytes += text.count
        }
        return bytes
    }

    /// The stored rows in COPY's text form, written to `path`; returns the bytes.
    static func copyRows(on connection: Connection, to path: String) async throws -> Int {
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw BenchFailure("cannot create \(path)")
        }
        let file = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? file.close() }
        var bytes = 0
        // event_records is partitioned by month: COPY reads a partitioned table through a query only.
        try await connection.copyOut("COPY (SELECT * FROM authlog.event_records) TO STDOUT") { row in
            file.write(Data(row))
            bytes += row.count
        }
        return bytes
    }

    /// Prints the append's rate and memory (before the baseline runs, so a failing baseline loses nothing).
    private func reportAppend(_ append: ChildRun) {
        say(
            String(
                format: "authlog append: %.0f events/s (%.2f s, %.1f CPU s), peak resident memory %.1f MB",
                Double(self.events) / append.seconds,
                append.seconds,
                append.cpuSeconds,
                Double(append.peakKilobytes) / 1024
            )
        )
    }

    /// Prints the baseline and the ratio.
    private func reportCopy(_ copy: ChildRun, against append: ChildRun, rowBytes: Int) {
        let appendRate = Double(self.events) / append.seconds
        let copyRate = Double(self.events) / copy.seconds
        say(
            String(
                format: "baseline COPY FROM STDIN (psql) of the same rows into a table LIKE event_records INCLUDING "
                    + "ALL (not partitioned): %.0f rows/s (%.1f MB in %.2f s)",
                copyRate,
                Double(rowBytes) / 1e6,
                copy.seconds
            )
        )
        let ratio = appendRate / copyRate
        say(String(format: "goal: append >= 0.3x COPY FROM: %.2fx %@", ratio, ratio >= 0.3 ? "met" : "NOT met"))
    }
}
