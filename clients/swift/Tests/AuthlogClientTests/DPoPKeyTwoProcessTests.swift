import AuthlogClient
import Foundation
import Testing

/// Processes sharing one token file (an app and its extensions, or command-line tools) that all make the install's
/// DPoP key at once end with one key. The second processes are this test binary run again with a filter that picks
/// ``childMakesTheKey()`` alone, which the environment turns on; they wait at a barrier file so that all of them,
/// and this process, ask at the same moment. Linux only: there the test binary is an executable of its own.
@Suite(.timeLimit(.minutes(1)))
struct DPoPKeyTwoProcessTests {
    /// The folder a child works in, when this process is one.
    static let childFolder = ProcessInfo.processInfo.environment["AUTHLOG_DPOP_KEY_CHILD_FOLDER"]
    static let children = 4

    #if os(Linux)
    static let isLinux = true
    #else
    static let isLinux = false
    #endif

    @Test(.enabled(if: Self.isLinux && Self.childFolder == nil))
    func processesRacingToMakeTheKeyEndWithOne() async throws {
        for _ in 0..<2 {
            let folder = try DeviceIDTests.tokenFile().deletingLastPathComponent()
            let tokens = folder.appendingPathComponent("tokens.json")
            let processes = try (0..<Self.children).map { try Self.spawnChild(folder: folder, number: $0) }
            defer { for process in processes where process.isRunning { process.terminate() } }
            let ready = await eventually(within: .seconds(30)) {
                (0..<Self.children).allSatisfy { Self.exists(folder, "ready-\($0)") }
            }
            #expect(ready, "every child reached the barrier")
            try Data().write(to: folder.appendingPathComponent("go"))
            let mine = try await Self.thumbprint(tokens)
            #expect(await eventually(within: .seconds(30)) { processes.allSatisfy { !$0.isRunning } })
            #expect(processes.map(\.terminationStatus) == Array(repeating: 0, count: Self.children))
            let theirs = try (0..<Self.children).map {
                try String(contentsOf: folder.appendingPathComponent("result-\($0)"), encoding: .utf8)
            }
            #expect(Set(theirs + [mine]).count == 1, "\(theirs) \(mine)")
            #expect(try await Self.thumbprint(tokens) == mine, "the key stayed")
        }
    }

    /// A second process: waits at the barrier, makes (or reads) the key, and writes its thumbprint.
    @Test(.enabled(if: Self.childFolder != nil))
    func childMakesTheKey() async throws {
        let folder = URL(fileURLWithPath: try #require(Self.childFolder))
        let number = try #require(ProcessInfo.processInfo.environment["AUTHLOG_DPOP_KEY_CHILD_NUMBER"])
        try Data().write(to: folder.appendingPathComponent("ready-\(number)"))
        #expect(await eventually(within: .seconds(30)) { Self.exists(folder, "go") })
        let thumbprint = try await Self.thumbprint(folder.appendingPathComponent("tokens.json"))
        try Data(thumbprint.utf8).write(to: folder.appendingPathComponent("result-\(number)"))
    }

    /// The thumbprint of the key a new client on the token file at `url` gets.
    static func thumbprint(_ url: URL) async throws -> String {
        let client = AuthlogClient(
            baseURL: URL(fileURLWithPath: "/"),
            tokenStore: FileTokenStore(url: url),
            configuration: .init(refreshBeforeExpiry: nil)
        )
        return try #require(try await client.dpopKeyThumbprint())
    }

    /// This test binary, started again to run ``childMakesTheKey()`` in `folder`.
    static func spawnChild(folder: URL, number: Int) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = [
            "--testing-library", "swift-testing", "--filter", "DPoPKeyTwoProcessTests/childMakesTheKey",
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["AUTHLOG_DPOP_KEY_CHILD_FOLDER"] = folder.path
        environment["AUTHLOG_DPOP_KEY_CHILD_NUMBER"] = String(number)
        process.environment = environment
        // No pipes: a child's output that nobody reads could block it.
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    static func exists(_ folder: URL, _ name: String) -> Bool {
        FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path)
    }
}
