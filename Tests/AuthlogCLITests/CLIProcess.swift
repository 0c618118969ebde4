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
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `authlog arguments…` with `input` on standard input and waits for it.
    static func run(_ arguments: [String], input: String = "", databaseURL: String) throws -> Output {
        let process = try self.start(arguments, databaseURL: databaseURL)
        process.stdin.fileHandleForWriting.write(Data(input.utf8))
        try process.stdin.fileHandleForWriting.close()
        let stdout = process.stdout.fileHandleForReading.readDataToEndOfFile()
        let stderr = process.stderr.fileHandleForReading.readDataToEndOfFile()
        process.process.waitUntilExit()
        return Output(
            status: process.process.terminationStatus,
            stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self)
        )
    }

    /// A running `authlog` with its pipes.
    struct Running {
        let process: Process
        let stdin: Pipe
        let stdout: Pipe
        let stderr: Pipe
    }

    /// Starts `authlog arguments…` without waiting for it.
    static func start(_ arguments: [String], databaseURL: String) throws -> Running {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: self.executable)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
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
