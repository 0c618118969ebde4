import AuthlogCore
import AuthlogTesting
import Foundation
import Testing

/// `authlog append` on inputs larger than a batch: every line is checked before anything is stored, the
/// events are committed and acknowledged a batch at a time, and memory does not grow with the input.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct AppendStreamingTests {
    /// The acknowledgements printed on standard output, as (first_line, last_line, first_position,
    /// last_position, stored).
    static func acknowledgements(_ stdout: String) throws -> [[Int64]] {
        try stdout.split(separator: "\n").map { line in
            let json = try JSONParser().parse(String(line))
            return ["first_line", "last_line", "first_position", "last_position", "stored"].map { name in
                guard case .number(let text)? = json[name] else { return -1 }
                return Int64(text) ?? -1
            }
        }
    }

    @Test func aBadLineAtTheEndOfALargeInputStoresNothing() async throws {
        let database = try await TestDatabase.make()
        var traffic = TrafficGenerator(seed: 11)
        let events = traffic.events(count: 12_000)
        let input = jsonLines(events) + #"{"type": "signin.failed", "stream": "signin-apple""# + "\n"
        let output = try await CLIProcess.run(["append"], input: input, databaseURL: database.conninfo)
        #expect(output.status == 1)
        #expect(output.stderr.contains("line \(events.count + 1): malformed JSON"), "\(output.stderr.prefix(300))")
        #expect(output.stderr.contains("1 bad line(s); nothing was stored"))
        #expect(output.stdout.isEmpty, "no batch was acknowledged")
        #expect(try await database.scalar("SELECT count(*) FROM authlog.event_records") == 0)
    }

    @Test func withoutBatchSizeALargeInputIsCommittedAndAcknowledgedTwoThousandAtATime() async throws {
        let database = try await TestDatabase.make()
        var traffic = TrafficGenerator(seed: 12)
        let events = Array(traffic.events(count: 4_500).prefix(4_500))
        let output = try await CLIProcess.run(["append"], input: jsonLines(events), databaseURL: database.conninfo)
        #expect(output.status == 0, "\(output.stderr)")
        let acknowledged = try Self.acknowledgements(output.stdout)
        #expect(
            acknowledged == [
                [1, 2000, 1, 2000, 2000], [2001, 4000, 2001, 4000, 2000], [4001, 4500, 4001, 4500, 500],
            ]
        )
        let verify = try await CLIProcess.run(["verify"], databaseURL: database.conninfo)
        #expect(verify.stdout.hasPrefix("log intact: 4500 events"), "\(verify.stdout)")
    }

    @Test func onlyTheFirstHundredBadLinesAreReportedAndAllAreCounted() async throws {
        let database = try await TestDatabase.make()
        var traffic = TrafficGenerator(seed: 13)
        var lines = jsonLines(Array(traffic.events(count: 10).prefix(10))).split(separator: "\n").map(String.init)
        lines += Array(repeating: "not json", count: 150)
        let output = try await CLIProcess.run(
            ["append"],
            input: lines.joined(separator: "\n"),
            databaseURL: database.conninfo
        )
        #expect(output.status == 1)
        let reported = output.stderr.split(separator: "\n").filter { $0.contains(": malformed JSON") }
        #expect(reported.count == 100)
        #expect(reported.first?.contains("line 11: ") == true)
        #expect(reported.last?.contains("line 110: ") == true)
        #expect(output.stderr.contains("only the first 100 are shown"))
        #expect(output.stderr.contains("150 bad line(s); nothing was stored"))
        #expect(try await database.scalar("SELECT count(*) FROM authlog.event_records") == 0)
    }

    @Test func theSpoolIsMadeInTMPDIRAndLeavesNothingThere() async throws {
        let database = try await TestDatabase.make()
        var traffic = TrafficGenerator(seed: 14)
        let input = jsonLines(traffic.events(count: 100))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("append-spool-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let stored = try await CLIProcess.run(
            ["append"],
            input: input,
            databaseURL: database.conninfo,
            environment: ["TMPDIR": folder]
        )
        #expect(stored.status == 0, "\(stored.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
        let missing = try await CLIProcess.run(
            ["append"],
            input: input,
            databaseURL: database.conninfo,
            environment: ["TMPDIR": folder + "/missing"]
        )
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("cannot make a spool file in \(folder)/missing"), "\(missing.stderr)")
        #expect(missing.stderr.contains("nothing was stored"))
    }

    /// The peak resident memory of `authlog append` on `count` events, in kB: VmHWM read from /proc while it
    /// runs (the last reading is taken just before it exits). Its standard input is a file and its output goes
    /// to /dev/null, so no task of this process blocks on a pipe while the readings are taken.
    static func peakKilobytes(appending count: Int, seed: UInt64, conninfo: String) async throws -> Int {
        var traffic = TrafficGenerator(seed: seed)
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("append-memory-\(UUID()).jsonl")
        try Data(jsonLines(traffic.events(count: count)).utf8).write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CLIProcess.executable)
        process.arguments = ["append"]
        var environment = ProcessInfo.processInfo.environment
        environment["AUTHLOG_DATABASE_URL"] = conninfo
        // ASan keeps freed memory in quarantine (256 MB by default), which would grow with the input.
        environment["ASAN_OPTIONS"] = (environment["ASAN_OPTIONS"].map { $0 + ":" } ?? "") + "quarantine_size_mb=0"
        process.environment = environment
        process.standardInput = try FileHandle(forReadingFrom: input)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        var peak = 0
        while process.isRunning {
            let status =
                (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
            let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
            peak = max(peak, Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "") ?? 0)
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(process.terminationStatus == 0)
        return peak
    }

    /// Ten times the input costs no more than a few batches' worth of memory (the whole-input reader grew by
    /// about 4.8 kB per event: about 170 MB more for these 36,000 more events).
    @Test func memoryDoesNotGrowWithTheInput() async throws {
        let database = try await TestDatabase.make()
        let small = try await Self.peakKilobytes(appending: 4_000, seed: 15, conninfo: database.conninfo)
        let large = try await Self.peakKilobytes(appending: 40_000, seed: 16, conninfo: database.conninfo)
        #expect(small > 0 && large > 0)
        #expect(large - small < 48_000, "4,000 events: \(small) kB, 40,000 events: \(large) kB")
    }
}
