import AuthlogCore
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `authlog serve` as its own OS process: start-up warning of the dev provider, and SIGTERM finishing
/// the requests in flight.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct ServeCommandTests {
    /// Starts `authlog serve --dev --port 0` and returns it with its base URL, read from its log.
    static func startServer(database: TestDatabase) throws -> (CLIProcess.Running, String, String) {
        let server = try CLIProcess.start(["serve", "--dev", "--port", "0"], databaseURL: database.conninfo)
        var log = ""
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let chunk = server.stderr.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            log += String(decoding: chunk, as: UTF8.self)
            if let range = log.range(of: "address=http://127.0.0.1:") {
                let port = log[range.upperBound...].prefix { $0.isNumber }
                return (server, "http://127.0.0.1:\(port)", log)
            }
        }
        server.process.terminate()
        throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "the server did not start: \(log)"])
    }

    @Test func sigtermFinishesTheRequestsInFlightAndExitsCleanly() async throws {
        let database = try await TestDatabase.make()
        let (server, baseURL, log) = try Self.startServer(database: database)
        #expect(log.contains("DEVELOPMENT MODE"), "the dev provider is announced at start-up")
        let client = HTTPTestClient(baseURL: baseURL)
        // One request first, so the client and a connection exist before the burst.
        #expect(try await client.send("GET", "/healthz").status == 200)
        let answers = await withTaskGroup(of: Int?.self) { group in
            for index in 0..<40 {
                group.addTask {
                    try? await client.post("/v1/signin/dev", .object([("subject", .string("user-\(index)"))])).status
                }
            }
            // SIGTERM once the server has finished one of them, so that the burst has really reached it: no
            // guess of how long that takes on a loaded machine.
            let deadline = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now < deadline,
                (try? await database.scalar("SELECT count(*) FROM authlog.events WHERE type = 'signin.succeeded'")) ?? 0
                    == 0
            {
                try? await Task.sleep(for: .milliseconds(5))
            }
            kill(server.process.processIdentifier, SIGTERM)
            return await group.reduce(into: []) { $0.append($1) }
        }
        await ChildProcess.waitForExit(server.process)
        #expect(server.process.terminationStatus == 0)
        let answered = answers.compactMap { $0 }
        #expect(answered.allSatisfy { $0 == 200 }, "every request the server took was finished: \(answered)")
        #expect(!answered.isEmpty)
        let sessions = try await database.scalar("SELECT count(*) FROM authlog.events WHERE type = 'signin.succeeded'")
        #expect(sessions == Int64(answered.count), "each answered sign-in is committed, and only those")
        #expect(
            try await database.scalar("SELECT count(*) FROM authlog.unsealed_events") == 0,
            "the sealer stops last and seals what the finished requests committed"
        )
        let rest = String(decoding: server.stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(rest.contains("authlog stopped"))
        #expect(!rest.contains("alr_"), "no refresh token in the log")
    }

    /// A port another process listens on: exit 2 with one sentence naming the port and what to do, not NIO's
    /// `bind(descriptor:ptr:bytes:)`.
    @Test func aPortInUseExitsTwoNamingThePort() async throws {
        let database = try await TestDatabase.make()
        // Started and watched through its log file, off the cooperative threads.
        let server = try await ServeProcess.start(database: database)
        defer { server.stop() }
        let port = String(server.port)
        let second = try await CLIProcess.run(["serve", "--dev", "--port", port], databaseURL: database.conninfo)
        #expect(second.status == 2)
        #expect(
            second.stderr.contains(
                "cannot listen on 127.0.0.1:\(port): another process is using that port; stop it, or choose another "
                    + "port with --port or \"port\" in the configuration (AUTHLOG_PORT)"
            ),
            "\(second.stderr)"
        )
        #expect(!second.stderr.contains("bind(descriptor"))
    }
}
