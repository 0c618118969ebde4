import AuthlogCore
import AuthlogTesting
import Foundation
import Synchronization

/// A log a device monitors: `authlog serve` on a test database (server "a") with the ``MonitoredLog``'s keys,
/// the device's ``MonitorProxy`` in front of it, and, once ``fork(witnesses:)`` is called, a second server ("b")
/// of the same log on a copy of the first one's database, signing with the same checkpoint key: from then on
/// the two histories differ by whatever each server records.
final class MonitorServers: Sendable {
    let log: MonitoredLog
    let a: ClientTestServer
    let proxy: MonitorProxy
    private let forked: ForkedServer

    private init(log: MonitoredLog, a: ClientTestServer, proxy: MonitorProxy) {
        self.log = log
        self.a = a
        self.proxy = proxy
        self.forked = ForkedServer()
    }

    /// Runs `body` with server "a" of `log` (new keys when nil) and the proxy started (`logMembers` added to the
    /// server's `log` settings), and stops everything afterwards, whether `body` threw or not.
    static func run(
        log given: MonitoredLog? = nil,
        logMembers: [String: JSONValue] = [:],
        _ body: (MonitorServers) async throws -> Void
    ) async throws {
        let log = try given ?? MonitoredLog.make()
        defer { log.remove() }
        let a = try await ClientTestServer.start(extra: log.configuration(server: "a", log: logMembers))
        let servers: MonitorServers
        do {
            servers = MonitorServers(
                log: log,
                a: a,
                proxy: try await MonitorProxy.start(primary: a.baseURL.absoluteString)
            )
        } catch {
            await a.stop()
            throw error
        }
        do {
            try await body(servers)
        } catch {
            await servers.stop()
            throw error
        }
        await servers.stop()
    }

    /// Starts server "b" on a copy of "a"'s database as it is now, with "a"'s signer state copied first (so the
    /// copy extends it, as an operator's copy would), the same keys and configuration, and "a"'s fake providers.
    func fork() async throws -> ClientTestServer {
        let directory = self.log.checkpointDirectory("b")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let state = self.log.checkpointDirectory("a") + "/latest.note"
        if FileManager.default.fileExists(atPath: state) {
            try FileManager.default.copyItem(atPath: state, toPath: directory + "/latest.note")
        }
        let copy = try await self.a.database.copy()
        let b = try await ClientTestServer.start(
            extra: self.log.configuration(server: "b"),
            database: copy,
            fake: self.a.fake
        )
        self.forked.set(b)
        return b
    }

    /// Signs in `count` new users with the dev provider at `server`, directly (not through the device's proxy):
    /// other people's traffic, which grows that server's history.
    static func otherUsers(_ count: Int, at server: ClientTestServer, named prefix: String) async throws {
        let client = HTTPTestClient(baseURL: server.baseURL.absoluteString)
        for index in 0..<count {
            let answer = try await client.post("/v1/signin/dev", .members(["subject": .string("\(prefix)-\(index)")]))
            guard answer.status == 200 else {
                throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "sign-in: \(answer.status)"])
            }
        }
    }

    /// The newest checkpoint `server` signed, once it covers every sealed event but checkpoint records
    /// (polled for up to 60 s): its note and size.
    static func settledCheckpoint(of server: ClientTestServer) async throws -> (note: String, size: Int64) {
        let database = server.database
        let client = HTTPTestClient(baseURL: server.baseURL.absoluteString)
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let unsigned = try await database.scalar(
                """
                SELECT (SELECT count(*) FROM authlog.unsealed_events) + (SELECT count(*) FROM authlog.events
                WHERE position > (SELECT coalesce(max(tree_size), 0) FROM authlog.checkpoints)
                  AND type <> 'audit.checkpoint_signed')
                """
            )
            let answer = try await client.send("GET", "/v1/log/checkpoint")
            let note = String(decoding: answer.body, as: UTF8.self)
            if unsigned == 0, answer.status == 200,
                let line = note.split(separator: "\n", omittingEmptySubsequences: false).dropFirst().first,
                let size = Int64(line)
            {
                return (note, size)
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "no settled checkpoint in 60 s"])
    }

    private func stop() async {
        await self.proxy.stop()
        if let b = self.forked.get() { await b.stop() }
        await self.a.stop()
    }

    /// Server "b", once started.
    private final class ForkedServer: Sendable {
        private let server = Mutex<ClientTestServer?>(nil)

        func set(_ server: ClientTestServer) { self.server.withLock { $0 = server } }
        func get() -> ClientTestServer? { self.server.withLock { $0 } }
    }
}
