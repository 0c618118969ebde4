import ArgumentParser
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

    /// The conninfo of a database prepared as ``connect(migrating:)`` describes.
    func conninfo(migrating: Bool = false) async throws -> String {
        try await reportingStoreErrors {
            switch DatabaseConfiguration.resolve(explicit: self.databaseURL) {
            case .conninfo(let conninfo):
                if !migrating { try await Self.requireSchema(on: try await Connection.connect(conninfo)) }
                return conninfo
            case .embedded(let directory):
                return try await Self.startEmbedded(in: directory, migrating: !migrating)
            }
        }
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

/// Writes a line to standard error.
func printError(_ message: String) {
    FileHandle.standardError.write(Data(("authlog: " + message + "\n").utf8))
}

/// Runs `body`, turning store errors into a message and the documented exit code.
func reportingStoreErrors<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let error as StoreError {
        // A missing privilege is already one sentence that names it; the code would only repeat it.
        printError(error.code == .insufficientPrivilege ? error.message : error.description)
        let unreachable = error.code == .connectionFailed || error.code == .embeddedDatabase
        throw ExitCode(unreachable ? 3 : 1)
    }
}

/// The configuration file at `path` (every default without one), with secrets from the environment; a file
/// that cannot be read or parsed is reported on standard error and exits 2.
func loadConfiguration(_ path: String?) throws -> ServerConfiguration {
    do {
        let configuration = try path.map(ServerConfiguration.load(path:)) ?? ServerConfiguration()
        return configuration.applyingEnvironment(ProcessInfo.processInfo.environment)
    } catch {
        printError("\(error)")
        throw ExitCode(2)
    }
}
