import AuthlogTesting
import Foundation

/// The `AuthlogClientProbe` executable: a second client process on a shared token file.
enum ClientProbe {
    /// The executable next to the test bundle.
    static var executable: String {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for folder in [testBinary, testBinary.deletingLastPathComponent()] {
            let candidate = folder.appendingPathComponent("AuthlogClientProbe").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return FileManager.default.currentDirectoryPath + "/.build/debug/AuthlogClientProbe"
    }

    /// What one probe printed: its counts by name (`succeeded`, `sign_outs`, …) and its whole output.
    struct Report {
        let counts: [String: Int]
        let output: ChildProcess.Output

        init(_ output: ChildProcess.Output) {
            self.output = output
            let line = output.stdout.split(separator: "\n").last { $0.hasPrefix("probe: ") } ?? ""
            var counts: [String: Int] = [:]
            for pair in line.dropFirst("probe: ".count).split(separator: " ") {
                let parts = pair.split(separator: "=")
                if parts.count == 2, let value = Int(parts[1]) { counts[String(parts[0])] = value }
            }
            self.counts = counts
        }
    }

    /// Runs the probe with `arguments` to its end. With `AUTHLOG_CLIENT_PROBE_WITHOUT_LOCK=1` in the test's
    /// environment the probes leave the refresh lock out (`--without-lock`), to show by hand the failure the lock
    /// prevents; nothing sets it in CI.
    static func run(_ arguments: [String]) async throws -> Report {
        let withoutLock = ProcessInfo.processInfo.environment["AUTHLOG_CLIENT_PROBE_WITHOUT_LOCK"] == "1"
        return Report(
            try await ChildProcess.run(
                self.executable,
                arguments + (withoutLock ? ["--without-lock"] : []),
                mergingErrors: true
            )
        )
    }
}
