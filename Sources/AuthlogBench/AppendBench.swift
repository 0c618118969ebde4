import ArgumentParser
import AuthlogPostgres
import AuthlogTesting
import Foundation

#if canImport(Glibc)
import Glibc
#endif

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
        let append = try Self.runChild(
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
        let copy = try Self.runChild(
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

    /// What one child process did: its exit status, wall time, and its peak resident memory and CPU seconds.
    struct ChildRun {
        var status: Int32
        var seconds: Double
        var peakKilobytes: Int
        var cpuSeconds: Double
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

    /// Runs `executable` with the file at `input` on standard input and the output thrown away, waits for it
    /// with wait4, and reads what that one process used: its CPU seconds from wait4, its peak resident memory
    /// from /proc while it runs (not those of other children this benchmark ran).
    static func runChild(
        _ executable: String,
        _ arguments: [String],
        input: String,
        environment extra: [String: String] = [:]
    ) throws -> ChildRun {
        let environment = ProcessInfo.processInfo.environment.merging(extra) { _, given in given }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, input, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let start = ContinuousClock.now
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard spawned == 0 else {
            throw BenchFailure("cannot run \(executable): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        var usage = rusage()
        // wait4's ru_maxrss keeps the largest resident set the child had before exec, which is this benchmark's
        // own (the spawned copy of it): the child's peak is read from its VmHWM, a high-water mark, every 50 ms
        // until it exits.
        var peakKilobytes = 0
        while true {
            let waited = wait4(pid, &status, WNOHANG, &usage)
            if waited == pid { break }
            guard waited == 0 || errno == EINTR else {
                throw BenchFailure("wait4: \(String(cString: strerror(errno)))")
            }
            peakKilobytes = max(peakKilobytes, Self.highWaterKilobytes(of: pid) ?? 0)
            usleep(50_000)
        }
        let seconds = (ContinuousClock.now - start).inSeconds
        let cpu = { (time: timeval) in Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        // The exit status as the shell shows it: the code, or 128 and the signal.
        let exit = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return ChildRun(
            status: exit,
            seconds: seconds,
            peakKilobytes: peakKilobytes,
            cpuSeconds: cpu(usage.ru_utime) + cpu(usage.ru_stime)
        )
    }

    /// The `VmHWM` line of `/proc/<pid>/status` (the process's peak resident set, in kB), or nil once it exited.
    static func highWaterKilobytes(of pid: pid_t) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
        return line.flatMap { Int($0.split(whereSeparator: \.isWhitespace).dropFirst().first ?? "") }
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
