import ArgumentParser
import AuthlogPostgres
import AuthlogServer
import AuthlogStore
import Foundation

/// The database options every command shares.
struct DatabaseOptions: ParsableArguments {
    @Option(
        name: .customLong("database-url"),
        help: ArgumentHelp(
            "PostgreSQL URL or conninfo.",
            discussion: "Default: AUTHLOG_DATABASE_URL, else libpq's PG* variables, else the embedded cluster.",
            valueName: "url"
        )
    )
    var databaseURL: String?

    /// Opens a connection to a database whose schema is current: the embedded cluster is started and
    /// migrated first when no database is configured; an external one must already be migrated unless
    /// `migrating` is set.
    func connect(migrating: Bool = false) async throws -> Connection {
        let conninfo = try await self.conninfo(migrating: migrating)
        return try await reportingStoreErrors { try await Connection.connect(conninfo) }
    }

    /// The conninfo of the primary, prepared as ``connect(migrating:)`` describes; `configured` is the
    /// configuration file's `database_url`, used when neither the option nor the environment names one. A
    /// standby given as the primary is refused with one sentence (exit 3): nothing could be recorded there.
    func conninfo(migrating: Bool = false, configured: String? = nil) async throws -> String {
        try await reportingStoreErrors {
            switch DatabaseConfiguration.resolve(explicit: self.databaseURL, configured: configured) {
            case .conninfo(let conninfo):
                let connection = try await Connection.connect(conninfo)
                if try await ServerRole.isStandby(connection) {
                    printError(
                        "the database is a read-only standby, so nothing could be recorded there: point "
                            + "--database-url (AUTHLOG_DATABASE_URL) at the primary (the commands that read the log "
                            + "take this standby as --read-database-url)"
                    )
                    throw ExitCode(3)
                }
                if !migrating { try await Self.requireSchema(on: connection) }
                return conninfo
            case .embedded(let directory):
                return try await Self.startEmbedded(in: directory, migrating: !migrating)
            }
        }
    }

    /// Where a read command reads and records: the primary (checked as ``conninfo(migrating:configured:)``
    /// does) and the read replica when one is given by the option, `AUTHLOG_READ_DATABASE_URL` or
    /// `configured`. A replica without an external primary is refused (exit 2): the read would be recorded in
    /// the embedded cluster instead. A replica that is unreachable now is accepted: reads fall back to the
    /// primary, and `serve`'s `/readyz` says so.
    func readTarget(
        _ replicaOptions: ReadReplicaOptions,
        configured: (primary: String?, replica: String?) = (nil, nil)
    ) async throws -> ReadTarget {
        let replica = DatabaseConfiguration.readReplica(
            explicit: replicaOptions.readDatabaseURL,
            configured: configured.replica
        )
        if replica != nil,
            case .embedded = DatabaseConfiguration.resolve(explicit: self.databaseURL, configured: configured.primary)
        {
            printError(
                "a read database needs its primary too, where the reads are recorded: set --database-url "
                    + "(AUTHLOG_DATABASE_URL) to the primary"
            )
            throw ExitCode(2)
        }
        let primary = try await self.conninfo(configured: configured.primary)
        guard let replica else { return ReadTarget(primary: primary, replica: nil) }
        // A replica that cannot be reached now is read around (the primary answers); one that can must have
        // the schema of this program.
        if let connection = try? await Connection.connect(replica) {
            try await reportingStoreErrors { try await Self.requireSchema(on: connection) }
        }
        return ReadTarget(primary: primary, replica: replica)
    }

    /// Starts (or reuses) the embedded cluster under `directory` and returns its conninfo, migrated first
    /// when `migrating` is set.
    static func startEmbedded(in directory: String, migrating: Bool) async throws -> String {
        let conninfo = try await EmbeddedPostgres(directory: directory).start()
        if migrating { try await Migrator().migrate(on: try await Connection.connect(conninfo)) }
        return conninfo
    }

    private static func requireSchema(on connection: Connection) async throws {
        let migrator = Migrator()
        let applied = try await migrator.appliedVersions(on: connection)
        guard Set(migrator.migrations.map(\.version)).isSubset(of: applied.keys) else {
            printError("the database schema is not up to date; run `authlog migrate` first")
            throw ExitCode(1)
        }
    }
}

/// The read replica option of the commands that read the log (report, export, prove, verify, sessions, serve).
struct ReadReplicaOptions: ParsableArguments {
    @Option(
        name: .customLong("read-database-url"),
        help: ArgumentHelp(
            "A read replica (PostgreSQL standby) for reports, exports, proofs, verify and session listings.",
            discussion: "Default: AUTHLOG_READ_DATABASE_URL, else none (everything reads the primary). "
                + "What the reads record (audit.accessed) still goes to the primary, with the replica's lag noted.",
            valueName: "url"
        )
    )
    var readDatabaseURL: String?
}

/// The databases of a read command: where it records (the primary) and where it reads.
struct ReadTarget {
    /// The primary's conninfo: `audit.accessed` is appended here.
    let primary: String
    /// The read replica's conninfo, when one is configured.
    let replica: String?

    /// Opens the connection to read from and runs `prepare` on it (the first reads, before anything is
    /// printed; it is given the lag when reading the replica): on the replica, with its lag behind the primary measured just before, the lag
    /// `audit.accessed` notes. When the replica falls short (unreachable, behind what `prepare` asked for, or
    /// cancelling the read for its replay: ``ReadDatabase/isReplicaShortcoming(_:)``), the primary answers
    /// instead and the read is recorded as the primary's. Store errors are reported as everywhere.
    func open<T>(
        _ prepare: (Connection, ReplicaLag?) async throws -> T
    ) async throws -> (connection: Connection, lag: ReplicaLag?, value: T) {
        try await reportingStoreErrors {
            if let replica = self.replica {
                do {
                    let connection = try await Connection.connect(replica)
                    let lag = try await ReplicaLag.measure(
                        replica: connection,
                        primary: try await Connection.connect(self.primary)
                    )
                    return (connection, lag, try await prepare(connection, lag))
                } catch  where ReadDatabase.isReplicaShortcoming(error) {
                    // Read from the primary below.
                }
            }
            let connection = try await Connection.connect(self.primary)
            return (connection, nil, try await prepare(connection, nil))
        }
    }
}

/// Writes a line to standard error.
func printError(_ message: String) {
    FileHandle.standardError.write(Data(("authlog: " + message + "\n").utf8))
}

/// Runs `body`, turning store errors into a message and the documented exit code.
func reportingStoreErrors<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let error as StoreError {
        // One sentence: no code names or SQLSTATEs; a missing privilege names the role the work needs.
        printError(error.sentence)
        let unreachable = error.code == .connectionFailed || error.code == .embeddedDatabase
        throw ExitCode(unreachable ? 3 : 1)
    }
}

/// The configuration file at `path` (every default without one) with the environment laid over it, read
/// strictly (``ServerConfiguration/load(path:environment:)``); a configuration that cannot be read, or has an
/// unknown key or a value of the wrong type, is reported in one sentence on standard error and exits 2.
func loadConfiguration(_ path: String?) throws -> ServerConfiguration {
    try loadConfigurationWithSources(path).configuration
}

/// The configuration as ``loadConfiguration(_:)`` reads it, with where each member came from.
func loadConfigurationWithSources(_ path: String?) throws -> LoadedConfiguration {
    do {
        return try ServerConfiguration.load(path: path, environment: ProcessInfo.processInfo.environment)
    } catch {
        printError(error.description)
        throw ExitCode(2)
    }
}
