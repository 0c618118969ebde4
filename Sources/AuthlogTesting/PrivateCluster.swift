public import AuthlogPostgres
import AuthlogStore
import Foundation

/// A PostgreSQL cluster of one test's own, in a temporary folder, for tests that stop or restart the
/// server: restarting the cluster that the test script shares among all suites would break the suites
/// running at the same time.
///
/// It is an ``EmbeddedPostgres`` (initdb and pg_ctl from the system's packages, a Unix socket only, run as
/// the `postgres` user when the tests run as root) with the superuser `authlog` and the database `authlog`.
public struct PrivateCluster: Sendable {
    /// The temporary folder holding the cluster.
    public let folder: String
    /// The superuser conninfo of the database `authlog`.
    public let conninfo: String

    private var embedded: EmbeddedPostgres { EmbeddedPostgres(directory: self.folder + "/.authlog") }

    /// Creates and starts a new cluster, migrated unless `migrated` is false.
    /// - Throws: ``StoreError`` when initdb, pg_ctl or the migration fails.
    public static func start(migrated: Bool = true) async throws -> PrivateCluster {
        let folder = "/tmp/authlog-pg-" + UUID().uuidString.lowercased().prefix(8)
        // The server may run as another user (`postgres`), who must be able to reach the cluster below.
        try FileManager.default.createDirectory(
            atPath: folder,
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o755]
        )
        let conninfo = try await EmbeddedPostgres(directory: folder + "/.authlog").start()
        let cluster = PrivateCluster(folder: folder, conninfo: conninfo)
        if migrated {
            try await Migrator().migrate(on: try await Connection.connect(conninfo))
        }
        return cluster
    }

    /// A hot standby of this cluster in a folder of its own, streaming from it (`pg_basebackup -R`); its
    /// `conninfo` reaches the same database `authlog`, read-only.
    /// - Throws: ``StoreError`` when pg_basebackup or pg_ctl fails.
    public func startStandby() async throws -> PrivateCluster {
        let folder = "/tmp/authlog-pg-" + UUID().uuidString.lowercased().prefix(8)
        try FileManager.default.createDirectory(
            atPath: folder,
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o755]
        )
        let conninfo = try await EmbeddedPostgres(directory: folder + "/.authlog").startStandby(
            following: self.embedded
        )
        return PrivateCluster(folder: folder, conninfo: conninfo)
    }

    /// Waits until `standby` has replayed everything this primary had written when the call began.
    /// - Throws: ``StoreError`` from either server, or `.server` when it has not caught up within `limit`.
    public func waitUntilCaughtUp(_ standby: PrivateCluster, limit: Duration = .seconds(60)) async throws {
        let primary = try await Connection.connect(self.conninfo)
        let replica = try await Connection.connect(standby.conninfo)
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if try await ReplicaLag.measure(replica: replica, primary: primary).bytesBehind == 0 { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw StoreError(.server, "the standby did not catch up within \(limit)")
    }

    /// Stops the server with `pg_ctl stop -m fast`: sessions end at once, with a FATAL message to each.
    /// - Throws: ``StoreError`` when pg_ctl fails.
    public func stop() throws {
        try self.embedded.stop()
    }

    /// Starts the stopped server again on the same data and socket.
    /// - Throws: ``StoreError`` when pg_ctl fails.
    public func resume() async throws {
        _ = try await self.embedded.start()
    }

    /// Stops and starts the server, as `pg_ctl restart -m fast` does.
    /// - Throws: ``StoreError`` when pg_ctl fails.
    public func restart() async throws {
        try self.stop()
        try await self.resume()
    }

    /// Stops the server and deletes the folder.
    public func remove() {
        _ = try? self.embedded.stop()
        try? FileManager.default.removeItem(atPath: self.folder)
    }

    /// Runs one statement as the superuser and returns the single integer it selects.
    /// - Throws: ``StoreError`` from the server or when the result is not one integer.
    public func scalar(_ query: SQLQuery) async throws -> Int64 {
        let result = try await Connection.connect(self.conninfo).query(query)
        guard let row = result.first else { throw StoreError(.decoding, "no row") }
        return try row.decode(Int64.self, at: 0)
    }
}
