public import Foundation

#if canImport(Glibc)
import Glibc
#endif

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

        let status = try await self.spawnAndWait(
            executable,
            arguments,
            environment: environment,
            directory: directory?.path,
            files: (inputFile.path, outputFile.path, mergingErrors ? nil : errorFile.path)
        )
        return Output(
            status: status,
            stdout: String(decoding: (try? Data(contentsOf: outputFile)) ?? Data(), as: UTF8.self),
            stderr: String(decoding: (try? Data(contentsOf: errorFile)) ?? Data(), as: UTF8.self)
        )
    }

    /// Starts the program with `posix_spawn` (standard input, output and error from the given files; error into
    /// output when nil) and waits for it on a Dispatch thread. Not Foundation's `Process`: its `run()` copies a
    /// fixed 256 bytes of each `/proc/self/fd` entry's name, past the end of its directory buffer, and crashed
    /// the test process (SIGSEGV in `Process.run`, under ordinary load).
    /// - Returns: the exit status, or 128 + the signal number when it was killed.
    private static func spawnAndWait(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String]?,
        directory: String?,
        files: (input: String, output: String, error: String?)
    ) async throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, files.input, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, files.output, O_WRONLY | O_TRUNC, 0)
        if let error = files.error {
            posix_spawn_file_actions_addopen(&actions, 2, error, O_WRONLY | O_TRUNC, 0)
        } else {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        // posix_spawn_file_actions_addchdir_np is not visible from Swift here: a shell changes directory and
        // then becomes the program.
        let command =
            directory.map { ["/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", $0, executable] + arguments }
            ?? [executable] + arguments
        let program = command[0]
        let argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map { values in
            values.map { strdup("\($0.key)=\($0.value)") } + [nil]
        }
        defer { for pointer in envp ?? [] { free(pointer) } }
        var pid: pid_t = 0
        let spawned =
            if let envp {
                program.contains("/")
                    ? posix_spawn(&pid, program, &actions, nil, argv, envp)
                    : posix_spawnp(&pid, program, &actions, nil, argv, envp)
            } else {
                program.contains("/")
                    ? posix_spawn(&pid, program, &actions, nil, argv, environ)
                    : posix_spawnp(&pid, program, &actions, nil, argv, environ)
            }
        guard spawned == 0 else {
            throw CocoaError(
                .fileReadUnknown,
                userInfo: [NSLocalizedDescriptionKey: "cannot run \(executable): \(String(cString: strerror(spawned)))"]
            )
        }
        let child = pid
        return await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            DispatchQueue.global().async {
                var status: Int32 = 0
                while waitpid(child, &status, 0) == -1, errno == EINTR {}
                let signal = status & 0x7F
                continuation.resume(returning: signal == 0 ? (status >> 8) & 0xFF : 128 + signal)
            }
        }
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
