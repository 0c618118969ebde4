import AuthlogPostgres
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// CPU seconds (user and system) that one process has used, from `/proc/<pid>/stat`.
enum ProcessCPU {
    /// The seconds `pid` has used so far (0 once it is gone); with `includingExitedChildren`, also those of its
    /// children that exited and were waited for.
    static func seconds(of pid: Int32, includingExitedChildren: Bool = false) -> Double {
        guard let stat = FileManager.default.contents(atPath: "/proc/\(pid)/stat"),
            let afterName = String(decoding: stat, as: UTF8.self).split(separator: ")").last
        else { return 0 }
        // After "pid (name)": state is field 3 of the whole line, utime 14, stime 15, cutime 16 and cstime 17.
        let fields = afterName.split(separator: " ")
        guard fields.count > 15, let user = Int(fields[11]), let system = Int(fields[12]),
            let childrenUser = Int(fields[13]), let childrenSystem = Int(fields[14])
        else { return 0 }
        let ticks = user + system + (includingExitedChildren ? childrenUser + childrenSystem : 0)
        return Double(ticks) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The seconds used so far by one PostgreSQL cluster: its postmaster with its exited children's (a backend
    /// whose connection closed during a measurement leaves its time in the postmaster's count of its children),
    /// and every live process the postmaster started (backends, autovacuum, the WAL writer, the checkpointer).
    /// Other clusters on this machine, such as other test runs', are not counted.
    static func seconds(ofCluster postmaster: Int32) -> Double {
        var total = Self.seconds(of: postmaster, includingExitedChildren: true)
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry), Self.parent(of: pid) == postmaster else { continue }
            total += Self.seconds(of: pid)
        }
        return total
    }

    /// The postmaster of the cluster `connection` is connected to: its backend's parent.
    /// - Throws: ``StoreError`` from the server; ``BenchFailure`` when the backend is not on this machine.
    static func postmaster(of connection: Connection) async throws -> Int32 {
        let backend = try await connection.query("SELECT pg_backend_pid()").first?.decode(Int32.self, at: 0)
        guard let backend, let parent = Self.parent(of: backend) else {
            throw BenchFailure("the cluster's backend is not a process of this machine")
        }
        return parent
    }

    /// The parent of `pid` (field 4 of `/proc/<pid>/stat`), nil once it is gone.
    private static func parent(of pid: Int32) -> Int32? {
        guard let stat = FileManager.default.contents(atPath: "/proc/\(pid)/stat"),
            let afterName = String(decoding: stat, as: UTF8.self).split(separator: ")").last
        else { return nil }
        let fields = afterName.split(separator: " ")
        return fields.count > 1 ? Int32(fields[1]) : nil
    }

    /// The seconds this process has used so far.
    static var ofThisProcess: Double { Self.seconds(of: getpid()) }
}

/// CPU used while a load ran, split between this process (the server and the users' client), the flood's
/// process and PostgreSQL's.
struct CPUSplit {
    let floods: [Int32]
    /// The postmaster of the measured cluster.
    let postmaster: Int32
    let thisProcess: Double
    let floodProcess: Double
    let postgres: Double

    /// The readings now, PostgreSQL's those of the cluster of `postmaster`.
    static func start(postmaster: Int32, floods: [Int32] = []) -> CPUSplit {
        CPUSplit(
            floods: floods,
            postmaster: postmaster,
            thisProcess: ProcessCPU.ofThisProcess,
            floodProcess: floods.map { ProcessCPU.seconds(of: $0) }.reduce(0, +),
            postgres: ProcessCPU.seconds(ofCluster: postmaster)
        )
    }

    /// The cores each used from the readings at the start to now, over `run`'s duration.
    func cores(over run: LoadRun) -> String {
        let now = CPUSplit.start(postmaster: self.postmaster, floods: self.floods)
        var parts = [
            String(format: "this process (server and users) %.2f", (now.thisProcess - self.thisProcess) / run.seconds)
        ]
        if !self.floods.isEmpty {
            parts.append(
                String(format: "the floods' clients %.2f", (now.floodProcess - self.floodProcess) / run.seconds)
            )
        }
        parts.append(String(format: "PostgreSQL %.2f", (now.postgres - self.postgres) / run.seconds))
        return parts.joined(separator: ", ")
    }

    /// The CPU each used per successful request of `run`, from the readings at the start to now: what throughput
    /// on a shared machine hides.
    func perRequest(of run: LoadRun) -> String {
        let now = CPUSplit.start(postmaster: self.postmaster, floods: self.floods)
        let requests = Double(max(run.successes, 1))
        return String(
            format: "%.0f us this process (server and users) + %.0f us PostgreSQL CPU per request",
            (now.thisProcess - self.thisProcess) * 1_000_000 / requests,
            (now.postgres - self.postgres) * 1_000_000 / requests
        )
    }
}
