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

    /// Starts this executable's `flood` subcommand against `url` over `connections` connections (at most 128:
    /// its HTTP client's connections to one host), for `seconds` when given, else until `requests` are sent, the
    /// last `rotating` of them from the second address.
    /// - Throws: when the child cannot be started.
    static func start(
        url: String,
        connections: Int,
        seconds: Double? = nil,
        requests: Int = 120_000,
        rotating: Int = 20_000
    ) throws -> FloodProcess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments =
            [
                "flood", "--url", url, "--connections", String(connections), "--requests", String(requests),
                "--rotating", String(rotating),
            ] + (seconds.map { ["--seconds", String($0)] } ?? [])
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

    /// The results of several floods run at once: their requests and refusals added, the longest time.
    /// - Throws: ``BenchFailure`` when one of them failed.
    static func results(of floods: [FloodProcess]) async throws -> Result {
        var sum = Result(sent: 0, refused: 0, seconds: 0)
        for flood in floods {
            let one = try await flood.result()
            sum = Result(
                sent: sum.sent + one.sent,
                refused: sum.refused + one.refused,
                seconds: max(sum.seconds, one.seconds)
            )
        }
        return sum
    }
}
