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

    /// The seconds used so far by every process whose name is `name` (`postgres`: each cluster's processes on
    /// this machine), with their exited children's: a backend whose connection closed during a measurement
    /// leaves its time in the postmaster's count of its children.
    static func seconds(ofAllNamed name: String) -> Double {
        var total = 0.0
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry),
                let comm = FileManager.default.contents(atPath: "/proc/\(entry)/comm"),
                String(decoding: comm, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == name
            else { continue }
            total += Self.seconds(of: pid, includingExitedChildren: true)
        }
        return total
    }

    /// The seconds this process has used so far.
    static var ofThisProcess: Double { Self.seconds(of: getpid()) }
}

/// CPU used while a load ran, split between this process (the server and the users' client), the flood's
/// process and PostgreSQL's.
struct CPUSplit {
    let floods: [Int32]
    let thisProcess: Double
    let floodProcess: Double
    let postgres: Double

    /// The readings now.
    static func start(floods: [Int32] = []) -> CPUSplit {
        CPUSplit(
            floods: floods,
            thisProcess: ProcessCPU.ofThisProcess,
            floodProcess: floods.map { ProcessCPU.seconds(of: $0) }.reduce(0, +),
            postgres: ProcessCPU.seconds(ofAllNamed: "postgres")
        )
    }

    /// The cores each used from the readings at the start to now, over `run`'s duration.
    func cores(over run: LoadRun) -> String {
        let now = CPUSplit.start(floods: self.floods)
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
}
