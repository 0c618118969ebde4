import AuthlogCore
import AuthlogCrypto
import AuthlogPostgres
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A private PostgreSQL cluster for one folder, started with the system's `initdb` and `pg_ctl`.
///
/// It lives in `.authlog/cluster` (data, socket, log), listens only on a Unix socket in that folder
/// (mode 0700, no TCP), and serves the database `authlog` to the role `authlog`. Run as root, the server
/// runs as the unprivileged `postgres` user; when that user cannot reach the folder (a project under
/// `/root`), the cluster is kept in `/var/lib/authlog/<hash>` and `.authlog/cluster` links to it.
public struct EmbeddedPostgres: Sendable {
    /// The `.authlog` folder.
    public let directory: String

    /// Creates a handle for the cluster under `directory` (normally `<folder>/.authlog`).
    public init(directory: String) {
        self.directory = directory
    }

    private var clusterLink: String { self.directory + "/cluster" }

    /// The cluster folder: `.authlog/cluster`, or where that link points.
    private var clusterFolder: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: self.clusterLink)) ?? self.clusterLink
    }
    private var logFile: String { self.directory + "/postgres.log" }

    /// Starts the cluster (creating it first when needed) or reuses the running one, creates the `authlog`
    /// database when it is missing, and returns the conninfo to reach it.
    /// - Throws: ``StoreError`` `.embeddedDatabase` naming what is missing or what failed.
    public func start() async throws -> String {
        guard let initdb = ChildProcess.findPostgresTool("initdb"), let pgCtl = ChildProcess.findPostgresTool("pg_ctl")
        else {
            throw StoreError(
                .embeddedDatabase,
                "no initdb/pg_ctl found on PATH or in /usr/lib/postgresql/*/bin; install the postgresql package "
                    + "or set AUTHLOG_DATABASE_URL"
            )
        }
        let user = try self.serverUser()
        let cluster = try self.prepareClusterFolder(serverUser: user)
        let data = cluster + "/data"
        let socket = try self.prepareSocketFolder(for: cluster, serverUser: user)
        if !FileManager.default.fileExists(atPath: data + "/PG_VERSION") {
            try self.initialise(initdb: initdb, data: data, socket: socket, user: user)
        }
        if try ChildProcess.run([pgCtl, "-D", data, "status"], asUser: user, logFile: self.logFile) != 0 {
            let status = try ChildProcess.run(
                [pgCtl, "-D", data, "-l", cluster + "/server.log", "-w", "-t", "60", "start"],
                asUser: user,
                logFile: self.logFile
            )
            guard status == 0 else {
                throw StoreError(.embeddedDatabase, "pg_ctl could not start the cluster; see \(cluster)/server.log")
            }
        }
        let admin = try await Connection.connect("host=\(socket) port=5432 user=authlog dbname=postgres")
        let exists = try await admin.query("SELECT 1 FROM pg_database WHERE datname = 'authlog'")
        if exists.rows.isEmpty {
            try await admin.execute("CREATE DATABASE authlog")
        }
        return "host=\(socket) port=5432 user=authlog dbname=authlog"
    }

    /// Makes this folder's cluster a hot standby streaming from `primary`'s (a copy taken with
    /// `pg_basebackup -R`, on its own socket, with `hot_standby_feedback` so long reads are not cancelled)
    /// and starts it; returns its conninfo. A standby already made is only started. For tests and benchmarks
    /// of reads from a replica on one machine.
    /// - Throws: ``StoreError`` `.embeddedDatabase` when a tool is missing or fails.
    public func startStandby(following primary: EmbeddedPostgres) async throws -> String {
        guard let basebackup = ChildProcess.findPostgresTool("pg_basebackup") else {
            throw StoreError(.embeddedDatabase, "no pg_basebackup found; install the postgresql package")
        }
        let user = try self.serverUser()
        let cluster = try self.prepareClusterFolder(serverUser: user)
        let data = cluster + "/data"
        let socket = try self.prepareSocketFolder(for: cluster, serverUser: user)
        if !FileManager.default.fileExists(atPath: data + "/PG_VERSION") {
            let primarySocket = Self.socketDirectory(for: primary.clusterFolder)
            let status = try ChildProcess.run(
                [
                    basebackup, "-h", primarySocket, "-p", "5432", "-U", "authlog", "-D", data, "-R", "-X", "stream",
                    "-c", "fast",
                ],
                asUser: user,
                logFile: self.logFile
            )
            guard status == 0 else {
                throw StoreError(.embeddedDatabase, "pg_basebackup failed; see \(self.logFile)")
            }
            // The copied postgresql.conf names the primary's socket folder: a later line takes precedence.
            let settings = """

                # authlog standby: its own socket; the primary keeps the rows its long reads still need.
                unix_socket_directories = '\(socket)'
                hot_standby = on
                hot_standby_feedback = on

                """
            try Self.appendSettings(settings, toClusterIn: data)
        }
        return try await self.start()
    }

    /// Stops the cluster cleanly (`pg_ctl stop -m fast`); does nothing when it is not running.
    /// - Throws: ``StoreError`` `.embeddedDatabase` when pg_ctl fails.
    @discardableResult
    public func stop() throws -> Bool {
        guard let pgCtl = ChildProcess.findPostgresTool("pg_ctl") else {
            throw StoreError(.embeddedDatabase, "no pg_ctl found")
        }
        let cluster = self.clusterFolder
        let data = cluster + "/data"
        guard FileManager.default.fileExists(atPath: data + "/PG_VERSION") else { return false }
        let user = try self.serverUser()
        guard try ChildProcess.run([pgCtl, "-D", data, "status"], asUser: user, logFile: self.logFile) == 0 else {
            return false
        }
        guard
            try ChildProcess.run([pgCtl, "-D", data, "-m", "fast", "-w", "stop"], asUser: user, logFile: self.logFile)
                == 0
        else {
            throw StoreError(.embeddedDatabase, "pg_ctl could not stop the cluster; see \(self.logFile)")
        }
        return true
    }

    /// Creates the cluster's socket folder (0700), owned by the server's user.
    private func prepareSocketFolder(for cluster: String, serverUser user: String?) throws -> String {
        let socket = Self.socketDirectory(for: cluster)
        try FileManager.default.createDirectory(
            atPath: socket,
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
        if let user {
            try ChildProcess.run(["/bin/chown", user, socket], logFile: self.logFile)
        }
        return socket
    }

    private func serverUser() throws -> String? {
        guard geteuid() == 0 else { return nil }
        guard getpwnam("postgres") != nil else {
            throw StoreError(
                .embeddedDatabase,
                "running as root, the embedded cluster needs the unprivileged 'postgres' user (apt-get install postgresql)"
            )
        }
        return "postgres"
    }

    private func prepareClusterFolder(serverUser: String?) throws -> String {
        let files = FileManager.default
        try files.createDirectory(
            atPath: self.directory,
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
        let isLink = (try? files.destinationOfSymbolicLink(atPath: self.clusterLink)) != nil
        if isLink || files.fileExists(atPath: self.clusterLink) { return self.clusterFolder }
        guard let serverUser else {
            try files.createDirectory(
                atPath: self.clusterLink,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
            return self.clusterLink
        }
        try files.setAttributes([.posixPermissions: 0o755], ofItemAtPath: self.directory)
        let probe = try ChildProcess.run(
            ["/usr/bin/test", "-x", self.directory],
            asUser: serverUser,
            logFile: self.logFile
        )
        if probe == 0 {
            try files.createDirectory(
                atPath: self.clusterLink,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
            try ChildProcess.run(["/bin/chown", serverUser, self.clusterLink], logFile: self.logFile)
            return self.clusterLink
        }
        let key = Hex.encode(SHA256.hash(Array(self.directory.utf8)).prefix(8))
        let elsewhere = "/var/lib/authlog/" + key
        try files.createDirectory(
            atPath: elsewhere,
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
        try ChildProcess.run(["/bin/chown", serverUser, elsewhere], logFile: self.logFile)
        try files.createSymbolicLink(atPath: self.clusterLink, withDestinationPath: elsewhere)
        return elsewhere
    }

    private func initialise(initdb: String, data: String, socket: String, user: String?) throws {
        let status = try ChildProcess.run(
            [initdb, "-D", data, "-U", "authlog", "-A", "trust", "-E", "UTF8", "--no-locale"],
            asUser: user,
            logFile: self.logFile
        )
        guard status == 0 else {
            throw StoreError(.embeddedDatabase, "initdb failed; see \(self.logFile)")
        }
        let settings = """

            # authlog embedded cluster: Unix socket only, reachable by its owner alone.
            listen_addresses = ''
            port = 5432
            unix_socket_directories = '\(socket)'
            unix_socket_permissions = 0700
            synchronous_commit = on

            """
        try Self.appendSettings(settings, toClusterIn: data)
    }

    /// Appends `settings` to the cluster's postgresql.conf (a later line takes precedence).
    private static func appendSettings(_ settings: String, toClusterIn data: String) throws {
        let configuration = try FileHandle(forWritingTo: URL(fileURLWithPath: data + "/postgresql.conf"))
        defer { try? configuration.close() }
        try configuration.seekToEnd()
        try configuration.write(contentsOf: Data(settings.utf8))
    }

    /// The socket folder: inside the cluster, or under /tmp when that path would be too long for a socket.
    private static func socketDirectory(for cluster: String) -> String {
        let inside = cluster + "/socket"
        if inside.utf8.count + "/.s.PGSQL.5432".utf8.count < 100 { return inside }
        return "/tmp/authlog-" + Hex.encode(SHA256.hash(Array(cluster.utf8)).prefix(8))
    }
}
