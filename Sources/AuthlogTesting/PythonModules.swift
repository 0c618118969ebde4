import Foundation

/// Whether python3 here can import the modules a cross-check runs (code nobody at authlog wrote): the probe behind
/// the suites that are skipped without them, except under `CI=true`, where they run regardless and fail.
public enum PythonModules {
    /// Whether `python3 -c "import …"` succeeds for `modules`; true under `CI=true` without asking.
    /// - Parameter modules: The modules' import names (`cryptography`, `ocsf_json_schema`).
    /// - Returns: Whether the suite that needs them should run.
    public static func areAvailable(_ modules: [String]) -> Bool {
        if ProcessInfo.processInfo.environment["CI"] == "true" { return true }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        probe.arguments = ["python3", "-c", "import " + modules.joined(separator: ", ")]
        probe.standardOutput = FileHandle.nullDevice
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }
}
