public import Foundation

/// Runs another program to its end from a test without holding one of Swift's cooperative threads.
///
/// All test suites share one process and, on a two-core machine, two cooperative threads. A test that blocked one
/// of them in `waitUntilExit()` while a Go checker compiled or a CLI export ran starved the fake identity
/// providers' handlers of the other tests, whose key fetches then timed out. Here the blocking wait runs on a
/// Dispatch thread, and the child's output goes to files, so a full pipe can never stall it either.
public enum ChildProcess {
    /// What a finished run returned and printed.
    public struct Output: Sendable {
        /// The exit status, or the signal number when it was killed.
        public var status: Int32
        /// Everything written to standard output (and standard error, when merged).
        public var stdout: String
        /// Everything written to standard error, empty when merged into `stdout`.
        public var stderr: String
    }

    /// Runs `executable arguments…` with `input` on standard input and waits for it to exit.
    /// - Parameters:
    ///   - executable: the program's path.
    ///   - arguments: its arguments.
    ///   - environment: the child's whole environment; `nil` inherits the test's.
    ///   - directory: its working directory; `nil` keeps the test's.
    ///   - input: what it reads on standard input.
    ///   - mergingErrors: write standard error into `stdout`, in the order printed.
    /// - Returns: its exit status and what it printed.
    /// - Throws: when the program cannot be started or the scratch files cannot be made.
    public static func run(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String]? = nil,
        in directory: URL? = nil,
        input: Data = Data(),
        mergingErrors: Bool = false
    ) async throws -> Output {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let inputFile = scratch.appendingPathComponent("stdin")
        let outputFile = scratch.appendingPathComponent("stdout")
        let errorFile = scratch.appendingPathComponent("stderr")
        try input.write(to: inputFile)
        _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let directory { process.currentDirectoryURL = directory }
        let standardInput = try FileHandle(forReadingFrom: inputFile)
        let standardOutput = try FileHandle(forWritingTo: outputFile)
        let standardError = mergingErrors ? standardOutput : try FileHandle(forWritingTo: errorFile)
        defer {
            try? standardInput.close()
            try? standardOutput.close()
            if !mergingErrors { try? standardError.close() }
        }
        process.standardInput = standardInput
        process.standardOutput = standardOutput
        process.standardError = standardError
        try process.run()
        await self.waitForExit(process)
        return Output(
            status: process.terminationStatus,
            stdout: String(decoding: (try? Data(contentsOf: outputFile)) ?? Data(), as: UTF8.self),
            stderr: String(decoding: (try? Data(contentsOf: errorFile)) ?? Data(), as: UTF8.self)
        )
    }

    /// Waits for a started `process` to exit, blocking a Dispatch thread instead of the caller's.
    public static func waitForExit(_ process: Process) async {
        let waiting = ProcessBox(process)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                waiting.process.waitUntilExit()
                continuation.resume()
            }
        }
    }

    /// Reads `handle` to its end (the writer closed it), blocking a Dispatch thread instead of the caller's.
    public static func readToEnd(_ handle: FileHandle) async -> Data {
        let reading = HandleBox(handle)
        return await withCheckedContinuation { (continuation: CheckedContinuation<Data, Never>) in
            DispatchQueue.global().async {
                continuation.resume(returning: reading.handle.readDataToEndOfFile())
            }
        }
    }
}

/// Carries a `Process` to the Dispatch thread that waits for it.
///
/// `@unchecked Sendable` because Foundation does not mark `Process` Sendable; the waiting thread only calls
/// `waitUntilExit()`, which Foundation documents as callable from any thread.
private final class ProcessBox: @unchecked Sendable {
    let process: Process
    init(_ process: Process) { self.process = process }
}

/// Carries a `FileHandle` to the Dispatch thread that reads it.
///
/// `@unchecked Sendable` because the handle is read by that one thread only, while the caller awaits it.
private final class HandleBox: @unchecked Sendable {
    let handle: FileHandle
    init(_ handle: FileHandle) { self.handle = handle }
}
