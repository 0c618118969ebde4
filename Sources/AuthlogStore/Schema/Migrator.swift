import AuthlogCore
import AuthlogCrypto
public import AuthlogPostgres

/// Applies the numbered files of `sql/migrations/` (embedded at build time) in order, each in its own
/// transaction, recording each with a SHA-256 checksum in `authlog.schema_migrations`. Then it applies the
/// current definitions of the views and functions (``CurrentDefinitions``, `sql/views/` and `sql/functions/`)
/// in the last migration's transaction, or in their own when no migration is pending but the files changed
/// since they were last applied.
///
/// Running it again applies nothing. It refuses to run when an applied migration's text has changed or
/// the database holds a migration this build does not know.
public struct Migrator: Sendable {
    /// One migration file.
    public struct Migration: Sendable, Equatable {
        /// The number at the start of the file name.
        public let version: Int
        /// The file name without the number and extension (`create_events`).
        public let name: String
        /// The SQL text.
        public let text: String
        /// Hex SHA-256 of the text.
        public var checksum: String { Hex.encode(SHA256.hash(Array(self.text.utf8))) }
    }

    /// The migrations built into this program, in order.
    public let migrations: [Migration]

    /// The current views and functions, applied after the migrations.
    let definitions: CurrentDefinitions

    /// Earlier texts of migrations that were rewritten without changing what they do to a database that
    /// applied them, by version: a database that recorded one of these checksums is current.
    /// 0001's role block now skips roles that exist, so that an owner without CREATEROLE can migrate once
    /// deploy/roles.sql created them; it created the same roles before.
    static let equivalentChecksums: [Int: Set<String>] = [
        1: ["9318aec9d47a7d21c16089d14a3162a277e13dee13fd6ae1921fc66292f22720"]
    ]

    /// Creates a migrator for the migrations built into this program.
    public init() {
        self.migrations = Self.parse(EmbeddedSQL.files)
        self.definitions = CurrentDefinitions(EmbeddedSQL.files)
    }

    /// Creates a migrator for the given files (names like `migrations/0001_create_events.sql`, and
    /// `views/…` or `functions/…` for the current definitions).
    public init(files: [(name: String, text: String)]) {
        self.migrations = Self.parse(files)
        self.definitions = CurrentDefinitions(files)
    }

    /// Brings the schema up to date, creates the log's partitions for the next months (``LogMonths``), and
    /// returns the migrations it applied (none when it was current).
    /// - Throws: ``StoreError`` `.schema` for a changed or unknown applied migration, or the server's error.
    @discardableResult
    public func migrate(on connection: Connection) async throws -> [Migration] {
        try await connection.query("SELECT pg_advisory_lock(7410001)")
        do {
            let applied = try await self.applyPending(on: connection)
            // The log's monthly partitions, created ahead (serve keeps them ahead while it runs).
            if try await connection.query("SELECT to_regclass('authlog.log_epoch') IS NOT NULL").first?
                .decode(Bool.self, at: 0) == true
            {
                try await LogMonths.prepare(on: connection)
            }
            try await connection.query("SELECT pg_advisory_unlock(7410001)")
            return applied
        } catch {
            await connection.rollbackQuietly()
            _ = try? await connection.query("SELECT pg_advisory_unlock(7410001)")
            throw error
        }
    }

    /// The versions recorded as applied, with their checksums.
    /// - Throws: ``StoreError`` from the server.
    public func appliedVersions(on connection: Connection) async throws -> [Int: String] {
        let exists = try await connection.query("SELECT to_regclass('authlog.schema_migrations') IS NOT NULL")
        guard try exists.first?.decode(Bool.self, at: 0) == true else { return [:] }
        let rows = try await connection.query("SELECT version, checksum FROM authlog.schema_migrations")
        var applied: [Int: String] = [:]
        for row in rows.rows {
            applied[try row.decode(Int.self, at: 0)] = try row.decode(String.self, at: 1)
        }
        return applied
    }

    private func applyPending(on connection: Connection) async throws -> [Migration] {
        let recorded = try await self.appliedVersions(on: connection)
        let unrecorded = Set(self.migrations.map(\.version)).subtracting(recorded.keys)
        if !unrecorded.isEmpty {
            try await MigrationPrivileges.check(on: connection, creatingRoles: unrecorded.contains(1))
        }
        try await MigrationPrivileges.naming(step: "create the schema authlog") {
            try await connection.execute(
                """
                CREATE SCHEMA IF NOT EXISTS authlog;
                CREATE TABLE IF NOT EXISTS authlog.schema_migrations (
                    version     integer     PRIMARY KEY,
                    name        text        NOT NULL,
                    checksum    text        NOT NULL,
                    applied_at  timestamptz NOT NULL DEFAULT now()
                )
                """
            )
        }
        let applied = try await self.appliedVersions(on: connection)
        let known = Dictionary(self.migrations.map { ($0.version, $0) }, uniquingKeysWith: { first, _ in first })
        for (version, checksum) in applied.sorted(by: { $0.key < $1.key }) {
            guard let migration = known[version] else {
                throw StoreError(
                    .schema,
                    "the database has migration \(version), which this authlog does not know; upgrade authlog"
                )
            }
            guard migration.checksum == checksum || Self.equivalentChecksums[version]?.contains(checksum) == true else {
                throw StoreError(
                    .schema,
                    "migration \(version)_\(migration.name) was changed after it was applied; restore the original file"
                )
            }
        }
        let pending = self.migrations.filter { applied[$0.version] == nil }
        for migration in pending {
            try await connection.withTransaction { connection in
                try await MigrationPrivileges.naming(step: "apply migration \(migration.version)_\(migration.name)") {
                    try await connection.execute(SQLQuery(unsafeSQL: migration.text))
                    if migration.version == 6 { try await LegacyLogImport.run(on: connection) }
                }
                try await connection.query(
                    """
                    INSERT INTO authlog.schema_migrations (version, name, checksum)
                    VALUES (\(migration.version), \(migration.name), \(migration.checksum))
                    """
                )
                if migration == pending.last { try await self.definitions.applyAndRecord(on: connection) }
            }
        }
        if pending.isEmpty, !self.definitions.isEmpty, try await self.definitions.changed(on: connection) {
            try await connection.withTransaction { connection in
                try await self.definitions.applyAndRecord(on: connection)
            }
        }
        return pending
    }

    private static func parse(_ files: [(name: String, text: String)]) -> [Migration] {
        files.compactMap { file -> Migration? in
            guard file.name.hasPrefix("migrations/"), file.name.hasSuffix(".sql") else { return nil }
            let base = file.name.dropFirst("migrations/".count).dropLast(".sql".count)
            let number = base.prefix { $0.isNumber }
            guard let version = Int(number), base.dropFirst(number.count).first == "_" else { return nil }
            return Migration(version: version, name: String(base.dropFirst(number.count + 1)), text: file.text)
        }
        .sorted { $0.version < $1.version }
    }
}
