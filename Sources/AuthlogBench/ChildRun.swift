import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What one child process a benchmark timed did (`authlog append`, `authlog verify`, psql's COPY): its exit
/// status, wall time, and its own peak resident memory and CPU seconds.
struct ChildRun {
    var status: Int32
    var seconds: Double
    var peakKilobytes: Int
    var cpuSeconds: Double

    /// Runs `executable` with the file at `input` on standard input and the output thrown away, waits for it
    /// with wait4, and reads what that one process used: its CPU seconds from wait4, its peak resident memory
    /// from /proc while it runs (not those of other children this benchmark ran).
    static func run(
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
}
