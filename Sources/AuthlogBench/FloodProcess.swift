import AuthlogCore
import Foundation

/// A running `authlog-bench flood` child (``FloodCommand``) and the line it prints when done.
struct FloodProcess {
    /// What the flood did.
    struct Result {
        let sent: Int
        let refused: Int
        let seconds: Double
    }

    let process: Process
    private let output: Pipe

    /// The child's process id.
    var pid: Int32 { self.process.processIdentifier }

    /// Starts this executable's `flood` subcommand against `url` over `connections` connections.
    /// - Throws: when the child cannot be started.
    static func start(url: String, connections: Int) throws -> FloodProcess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["flood", "--url", url, "--connections", String(connections)]
        let output = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
        return FloodProcess(process: process, output: output)
    }

    /// Waits for the flood to end and reads its result line.
    /// - Throws: ``BenchFailure`` when the child failed or printed no result.
    func result() async throws -> Result {
        let handle = self.output.fileHandleForReading
        let bytes = try await Task.detached { try handle.readToEnd() ?? Data() }.value
        self.process.waitUntilExit()
        let line = try JSONParser().parse(Array(bytes))
        guard self.process.terminationStatus == 0,
            let sent = line["sent"]?.integerValue,
            let refused = line["refused"]?.integerValue,
            case .number(let text) = line["seconds"], let seconds = Double(text)
        else {
            throw BenchFailure("the flood process failed (status \(self.process.terminationStatus))")
        }
        return Result(sent: Int(sent), refused: Int(refused), seconds: seconds)
    }
}
