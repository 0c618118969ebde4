import AuthlogTesting
import Foundation
import Testing

/// `authlog config check` as its own OS process, with no database anywhere: the effective configuration with
/// each value's source, or the one sentence that refuses it (exit 2).
struct ConfigCheckCommandTests {
    /// Runs `authlog config check …` in an empty folder, with no `AUTHLOG_*` variable but `environment`.
    static func check(_ arguments: [String], environment: [String: String] = [:]) async throws -> ChildProcess.Output {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("config-check-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let inherited = ProcessInfo.processInfo.environment.filter {
            !$0.key.hasPrefix("AUTHLOG_") && !$0.key.hasPrefix("PG")
        }
        return try await ChildProcess.run(
            CLIProcess.executable,
            ["config", "check"] + arguments,
            environment: inherited.merging(environment) { _, given in given },
            in: folder
        )
    }

    /// Writes `json` to a temporary configuration file.
    static func file(_ json: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("authlog-\(UUID().uuidString).json")
            .path
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The printed rows by member: value and source.
    static func rows(_ output: String) -> [String: (value: String, source: String)] {
        var rows: [String: (value: String, source: String)] = [:]
        for line in output.split(separator: "\n").dropFirst(2) {
            let cells = line.split(separator: "  ", omittingEmptySubsequences: true).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard cells.count == 3 else { continue }
            rows[cells[0]] = (cells[1], cells[2])
        }
        return rows
    }

    @Test func printsEveryValueWithItsSourceAndMasksSecrets() async throws {
        let path = try Self.file(
            #"{"port": 9000, "data_key": "file-secret", "rate_limits": {"per_address": {"signin": {"burst": 5}}}}"#
        )
        let output = try await Self.check(
            ["--config", path],
            environment: ["AUTHLOG_RATE_LIMITS__PER_ADDRESS__SIGNIN__BURST": "20", "AUTHLOG_TEST_DATABASE_URL": "x"]
        )
        #expect(output.status == 0, "\(output.stderr)")
        let rows = Self.rows(output.stdout)
        #expect(rows["port"]?.value == "9000")
        #expect(rows["port"]?.source == "file")
        #expect(rows["host"]?.value == #""127.0.0.1""#)
        #expect(rows["host"]?.source == "default")
        #expect(rows["rate_limits.per_address.signin.burst"]?.value == "20")
        #expect(
            rows["rate_limits.per_address.signin.burst"]?.source
                == "environment (AUTHLOG_RATE_LIMITS__PER_ADDRESS__SIGNIN__BURST)"
        )
        #expect(rows["data_key"]?.value == #""****""#)
        #expect(!output.stdout.contains("file-secret"))
    }

    @Test func anUnknownKeyExitsTwoWithOneSentence() async throws {
        let path = try Self.file(#"{"rate_limits": {"per_address": {"signin": {"brust": 20}}}}"#)
        let output = try await Self.check(["--config", path])
        #expect(output.status == 2)
        #expect(output.stdout.isEmpty)
        #expect(
            output.stderr
                == "authlog: unknown key rate_limits.per_address.signin.brust in \(path); did you mean `burst`?\n"
        )
    }

    @Test func aWrongTypeInTheEnvironmentExitsTwo() async throws {
        let output = try await Self.check([], environment: ["AUTHLOG_PORT": "80x"])
        #expect(output.status == 2)
        #expect(output.stderr == "authlog: port (AUTHLOG_PORT) must be a whole number, got text \"80x\"\n")
    }

    @Test func aValueOutOfRangeIsRefusedAsServeRefusesIt() async throws {
        let output = try await Self.check([], environment: ["AUTHLOG_LOG__CHECKPOINT_EVERY_EVENTS": "0"])
        #expect(output.status == 2)
        #expect(output.stderr.contains("log.checkpoint_every_events"))
    }
}
