import AuthlogPostgres
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs a program to completion with its output appended to a log file.
///
/// Uses `posix_spawn` and `waitpid` rather than Foundation's `Process`: `pg_ctl start` leaves a server
/// running that inherits the child's descriptors, and `Process.waitUntilExit()` then never returns.
/// The child gets /dev/null as input, the log file as output, and no other descriptor of ours.
enum ChildProcess {
    /// Runs `arguments[0]` with the rest as arguments, as `user` (through `runuser`) when given.
    /// - Returns: the exit status (128 + signal number when it was killed).
    /// - Throws: ``StoreError`` `.embeddedDatabase` when the program cannot be started.
    @discardableResult
    static func run(_ arguments: [String], asUser user: String? = nil, logFile: String) throws -> Int32 {
        let command = (user.map { ["/usr/sbin/runuser", "-u", $0, "--"] } ?? []) + arguments
        guard let executable = command.first else { return 0 }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logFile, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let inherited = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for descriptor in inherited.compactMap({ Int32($0) }) where descriptor > 2 {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
        let argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard spawned == 0 else {
            throw StoreError(.embeddedDatabase, "cannot run \(executable): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { throw StoreError(.embeddedDatabase, "waitpid failed for \(executable)") }
        }
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }

    /// The first executable called `name` on `PATH` or in the newest `/usr/lib/postgresql/*/bin`.
    static func findPostgresTool(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        var candidates = path.split(separator: ":").map { "\($0)/\(name)" }
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        for version in versions.sorted(by: { (Int($0) ?? 0) > (Int($1) ?? 0) }) {
            candidates.append("/usr/lib/postgresql/\(version)/bin/\(name)")
        }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
