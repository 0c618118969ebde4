import Foundation

/// Samples the process's resident memory while a test reads, for bounds on what a read may hold: the most it grew
/// over its size when the watch started. Linux only (`/proc/self/status`); elsewhere it measures nothing.
final class MemoryWatch: Sendable {
    private let baseline: Int?
    private let sampler: Task<Int, Never>

    /// Starts sampling every 2 ms.
    init() {
        let baseline = Self.residentBytes()
        self.baseline = baseline
        self.sampler = Task {
            var most = baseline ?? 0
            while !Task.isCancelled {
                most = max(most, Self.residentBytes() ?? 0)
                try? await Task.sleep(for: .milliseconds(2))
            }
            return max(most, Self.residentBytes() ?? 0)
        }
    }

    /// Stops sampling; how many bytes the resident memory grew at most, or nil where it cannot be read.
    func stop() async -> Int? {
        self.sampler.cancel()
        let most = await self.sampler.value
        return self.baseline.map { most - $0 }
    }

    /// `VmRSS` of `/proc/self/status`, in bytes.
    static func residentBytes() -> Int? {
        #if os(Linux)
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Int(line.dropFirst(6).trimmingCharacters(in: .whitespaces).dropLast(3))
        else { return nil }
        return kilobytes * 1024
        #else
        return nil
        #endif
    }
}
