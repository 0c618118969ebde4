import Foundation

/// Where the database is: an explicit URL or conninfo, else `AUTHLOG_DATABASE_URL`, else the configuration
/// file's `database_url`, else libpq's own `PG*` variables; when none of these is set, the embedded cluster
/// under `.authlog/`.
public enum DatabaseConfiguration: Sendable, Equatable {
    /// A libpq connection string (`postgresql://…` or `key=value …`); empty means "libpq's PG* variables".
    case conninfo(String)
    /// No database configured: use the embedded cluster in this folder.
    case embedded(directory: String)

    /// The libpq variables that, when set, configure a database.
    public static let libpqVariables = ["PGHOST", "PGHOSTADDR", "PGPORT", "PGDATABASE", "PGUSER", "PGSERVICE"]

    /// Resolves the configuration from an explicit option, the environment and the configuration file's
    /// `configured` value.
    public static func resolve(
        explicit: String?,
        configured: String? = nil,
        environment: [String: String]? = nil,
        workingDirectory: String? = nil
    ) -> DatabaseConfiguration {
        let environment = environment ?? ProcessInfo.processInfo.environment
        let workingDirectory = workingDirectory ?? FileManager.default.currentDirectoryPath
        if let explicit, !explicit.isEmpty { return .conninfo(explicit) }
        if let url = environment["AUTHLOG_DATABASE_URL"], !url.isEmpty { return .conninfo(url) }
        if let configured, !configured.isEmpty { return .conninfo(configured) }
        if Self.libpqVariables.contains(where: { !(environment[$0] ?? "").isEmpty }) { return .conninfo("") }
        return .embedded(directory: workingDirectory + "/.authlog")
    }

    /// The read replica, when one is set: an explicit option, else `AUTHLOG_READ_DATABASE_URL`, else the
    /// configuration file's `configured` value (`read_database_url`).
    public static func readReplica(
        explicit: String?,
        configured: String? = nil,
        environment: [String: String]? = nil
    ) -> String? {
        let environment = environment ?? ProcessInfo.processInfo.environment
        return [explicit, environment["AUTHLOG_READ_DATABASE_URL"], configured].compactMap { $0 }.first { !$0.isEmpty }
    }
}
