public import Foundation

/// The independent Go checkers of `Tests/GoCheckers` (tlogcheck, tilecheck), built offline with Debian's Go
/// and its `golang.org/x/mod` package (`GO111MODULE=off`, `GOPATH=/usr/share/gocode`).
public enum GoProgram {
    /// Where Debian installs Go packages' sources.
    public static let gopath = "/usr/share/gocode"

    /// The `go` binary, if one is installed.
    public static var binary: String? {
        ["/usr/bin/go", "/usr/lib/go/bin/go", "/usr/local/go/bin/go"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    /// Whether the checkers can run here; under `CI=true` always (then a missing toolchain fails the test).
    /// Otherwise a missing toolchain skips `what` with a line saying what to install.
    public static func isWanted(for what: String) -> Bool {
        if ProcessInfo.processInfo.environment["CI"] == "true" { return true }
        let available =
            FileManager.default.fileExists(atPath: "\(Self.gopath)/src/golang.org/x/mod/sumdb/tlog")
            && Self.binary != nil
        if !available {
            print("skipping \(what): install golang-go and golang-golang-x-mod-dev (.ci/install-deps --tests)")
        }
        return available
    }

    /// Why a checker could not be built.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Builds `Tests/GoCheckers/<name>` into a temporary directory.
    /// - Returns: the executable.
    /// - Throws: ``Failure`` without Go or when the build fails.
    public static func build(_ name: String) async throws -> URL {
        guard let go = Self.binary else { throw Failure(description: "no go binary: install golang-go") }
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Tests/GoCheckers/\(name)").standardizedFileURL
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let executable = directory.appendingPathComponent(name)
        let result = try await ChildProcess.run(
            go,
            ["build", "-o", executable.path, "."],
            environment: [
                "GO111MODULE": "off", "GOPATH": Self.gopath, "GOCACHE": directory.appendingPathComponent("cache").path,
                "HOME": directory.path, "PATH": "/usr/bin:/bin",
            ],
            in: source
        )
        guard result.status == 0 else { throw Failure(description: "go build failed: \(result.stderr)") }
        return executable
    }
}
