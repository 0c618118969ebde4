import AuthlogTesting
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs the built `authlog` binary as a separate OS process.
struct CLIProcess {
    /// The `authlog` executable next to the test bundle.
    static var executable: String {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for folder in [testBinary, testBinary.deletingLastPathComponent()] {
            let candidate = folder.appendingPathComponent("authlog").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return FileManager.default.currentDirectoryPath + "/.build/debug/authlog"
    }

    /// What a finished run printed and returned.
    typealias Output = ChildProcess.Output

    /// Runs `authlog arguments…` with `input` on standard input and waits for it, off the cooperative threads.
    static func run(
        _ arguments: [String],
        input: String = "",
        databaseURL: String,
        environment extra: [String: String] = [:]
    ) async throws -> Output {
        var environment = ProcessInfo.processInfo.environment.merging(extra) { _, given in given }
        environment["AUTHLOG_DATABASE_URL"] = databaseURL
        return try await ChildProcess.run(
            self.executable,
            arguments,
            environment: environment,
            input: Data(input.utf8)
        )
    }

    /// A running `authlog` with its pipes.
    struct Running {
        let process: Process
        let stdin: Pipe
        let stdout: Pipe
        let stderr: Pipe
    }

    /// Starts `authlog arguments…` without waiting for it, with `extra` laid over the environment.
    static func start(
        _ arguments: [String],
        databaseURL: String,
        environment extra: [String: String] = [:]
    ) throws -> Running {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: self.executable)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment.merging(extra) { _, given in given }
        environment["AUTHLOG_DATABASE_URL"] = databaseURL
        process.environment = environment
        let running = Running(process: process, stdin: Pipe(), stdout: Pipe(), stderr: Pipe())
        process.standardInput = running.stdin
        process.standardOutput = running.stdout
        process.standardError = running.stderr
        try process.run()
        return running
    }
}
