import AuthlogCore
import AuthlogTesting
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `authlog serve` processes on one database, for the benchmarks of several servers: each its own OS
/// process with its own pool, sealer, checkpoint signer and sweepers, as operators run them behind a load
/// balancer.
struct ServeChildren {
    /// One running server.
    struct Child {
        let process: Process
        let baseURL: String
    }

    let children: [Child]

    /// The `authlog` executable next to this benchmark's (both are built by `swift build -c release`).
    static var executable: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("authlog")
            .path
    }

    /// Starts `count` servers on `conninfo` with `configuration`, each logging into a file in `folder`, and
    /// waits until each has said where it listens.
    /// - Throws: when `authlog` is missing or a server does not start within 60 s.
    static func start(
        count: Int,
        conninfo: String,
        configuration: JSONValue,
        folder: String,
        executable: String = Self.executable
    ) async throws -> ServeChildren {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw BenchFailure("no authlog executable at \(executable): build it with swift build -c release")
        }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let configFile = folder + "/config.json"
        // Every client of a benchmark runs on this host: no per-address limit in the way unless one is asked for.
        var configuration = configuration
        if case .object(let members) = configuration, !members.contains(where: { $0.0 == "rate_limits" }) {
            configuration = .object(members + [("rate_limits", .members(["enabled": .bool(false)]))])
        }
        try Data(configuration.canonicalBytes).write(to: URL(fileURLWithPath: configFile))
        var children: [Child] = []
        for index in 0..<count {
            let logFile = "\(folder)/serve-\(index).log"
            _ = FileManager.default.createFile(atPath: logFile, contents: nil)
            let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logFile))
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = ["serve", "--dev", "--port", "0", "--config", configFile]
            var environment = ProcessInfo.processInfo.environment
            environment["AUTHLOG_DATABASE_URL"] = conninfo
            environment["LOG_LEVEL"] = "info"
            process.environment = environment
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = log
            process.standardError = log
            do {
                try process.run()
                try log.close()
                children.append(Child(process: process, baseURL: try await Self.address(in: logFile, of: process)))
            } catch {
                // Those already running must not outlive the benchmark.
                await ServeChildren(children: children).stop()
                throw error
            }
        }
        return ServeChildren(children: children)
    }

    /// The address the server logs once it listens.
    private static func address(in logFile: String, of process: Process) async throws -> String {
        if let port = try await ListeningAddress.port(loggedIn: logFile, by: process, within: .seconds(60)) {
            return "http://127.0.0.1:\(port)"
        }
        process.terminate()
        throw BenchFailure("authlog serve did not start; see \(logFile)")
    }

    /// Stops every server with SIGTERM and waits for them.
    func stop() async {
        for child in self.children { child.process.terminate() }
        for child in self.children {
            while child.process.isRunning { try? await Task.sleep(for: .milliseconds(20)) }
        }
    }
}

/// A benchmark that cannot run, with the reason.
struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
