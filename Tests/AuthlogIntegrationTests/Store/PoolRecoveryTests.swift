import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

/// The pool after PostgreSQL restarts: idle connections that the restart ended are found and dropped
/// before they are handed out. Each test restarts a cluster of its own, never the one other suites share.
@Suite(.enabled(if: TestDatabase.isAvailable), .serialized)
struct PoolRecoveryTests {
    /// Takes `count` connections at once (so they are distinct), runs a query on each and returns them.
    private func fillIdle(_ pool: ConnectionPool, count: Int) async throws -> Set<Int64> {
        var connections: [Connection] = []
        var backends: Set<Int64> = []
        for _ in 0..<count {
            let connection = try await pool.acquire()
            let row = try #require(try await connection.query("SELECT pg_backend_pid()").first)
            backends.insert(try row.decode(Int64.self, at: 0))
            connections.append(connection)
        }
        for connection in connections { await pool.release(connection) }
        return backends
    }

    /// The server process that answers a query on a connection from `pool`.
    private func backend(of pool: ConnectionPool) async throws -> Int64? {
        try await pool.withConnection { try await $0.query("SELECT pg_backend_pid()").first?.decode(Int64.self, at: 0) }
    }

    @Test func theFirstQueryAfterARestartSucceeds() async throws {
        let cluster = try await PrivateCluster.start(migrated: false)
        defer { cluster.remove() }
        let pool = ConnectionPool(conninfo: cluster.conninfo, maximumConnections: 6)
        let before = try await self.fillIdle(pool, count: 6)
        #expect(before.count == 6)
        try await cluster.restart()
        // Every connection in the pool was idle when the server went away; the first query must not get one.
        let first = try await self.backend(of: pool)
        #expect(first.map { !before.contains($0) } == true, "the first query ran on a new connection")
        // And every stale one is gone: six at once all succeed, none on a backend from before the restart.
        let after = try await self.fillIdle(pool, count: 6)
        #expect(after.isDisjoint(with: before))
    }

    @Test func theFirstAppendAfterARestartSucceedsWithAFullPool() async throws {
        let cluster = try await PrivateCluster.start()
        defer { cluster.remove() }
        let pool = ConnectionPool(conninfo: cluster.conninfo, maximumConnections: 8)
        let store = PostgresEventStore(pool: pool)
        try await store.append(failedSignin())
        _ = try await self.fillIdle(pool, count: 8)
        try await cluster.restart()
        // The writer retries a batch once when its opening round trip fails; eight stale connections
        // used to exhaust that, failing the first append after recovery.
        try await store.append(failedSignin())
        try await store.sealPending()
        #expect(try await cluster.scalar("SELECT count(*) FROM authlog.events") == 2)
    }

    @Test func aQuietHealthyConnectionIsKept() async throws {
        let cluster = try await PrivateCluster.start(migrated: false)
        defer { cluster.remove() }
        let pool = ConnectionPool(conninfo: cluster.conninfo, maximumConnections: 2)
        let before = try await self.fillIdle(pool, count: 1)
        // A message the server sends while the connection is idle (a notification from another session)
        // makes its socket readable; it is read and the connection kept.
        _ = try await pool.withConnection { try await $0.execute("LISTEN authlog_test") }
        try await Connection.connect(cluster.conninfo).execute("NOTIFY authlog_test")
        try await Task.sleep(for: .milliseconds(200))
        let again = try await self.backend(of: pool)
        #expect(again.map { before.contains($0) } == true, "the healthy idle connection was reused")
    }
}
