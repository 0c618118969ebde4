import AuthlogCore
import AuthlogCrypto
import AuthlogPostgres

/// The current definition of every view and function, one file each under `sql/functions/` and `sql/views/`
/// (named `schema.name.sql`), each written `CREATE OR REPLACE` so that applying it again changes nothing.
///
/// The numbered migrations stay the history (tables only ever move forward there); these files are where a
/// view's or function's definition is read and changed. The ``Migrator`` applies them after the migrations,
/// in the same transaction as the last one, or in their own when none is pending but the files changed since
/// they were last applied (their ``checksum`` is kept in `authlog.schema_definitions`): applying them takes
/// a brief exclusive lock on every view and needs the role that owns them, so an unchanged schema is left
/// alone.
/// `CREATE OR REPLACE` keeps an object's owner and grants, and cannot drop or reorder a view's columns: a
/// change of that kind still needs a migration.
///
/// The order: every function, then every view, each by file name. A view that reads another view must sort
/// after it; today the dashboard views read `authlog.report_rollups` and `authlog.report_rollups_daily`, and
/// `authlog.` sorts before `dashboard.`.
struct CurrentDefinitions: Sendable {
    /// One file, named as under `sql/` (`views/authlog.events.sql`).
    struct File: Sendable, Equatable {
        /// The path under `sql/`.
        let name: String
        /// The `CREATE OR REPLACE` statement.
        let text: String
    }

    /// The files in the order they are applied.
    let files: [File]

    /// Picks the files under `functions/` and `views/` out of `files` (names relative to `sql/`).
    init(_ files: [(name: String, text: String)]) {
        func folder(_ prefix: String) -> [File] {
            files.filter { $0.name.hasPrefix(prefix) && $0.name.hasSuffix(".sql") }
                .map { File(name: $0.name, text: $0.text) }
                .sorted { $0.name < $1.name }
        }
        self.files = folder("functions/") + folder("views/")
    }

    /// Whether there is nothing to apply.
    var isEmpty: Bool { self.files.isEmpty }

    /// SHA-256 over every file's name and text, in order.
    var checksum: String {
        var bytes: [UInt8] = []
        for file in self.files {
            bytes += Array(file.name.utf8) + [0] + Array(file.text.utf8) + [0]
        }
        return Hex.encode(SHA256.hash(bytes))
    }

    /// Whether the database last applied other files than these (or never recorded any: the table comes
    /// with migration 14, so a database migrated only partway always gets them).
    /// - Throws: ``StoreError`` from the server.
    func changed(on connection: Connection) async throws -> Bool {
        guard try await Self.hasChecksumTable(on: connection) else { return true }
        let stored = try await connection.query("SELECT checksum FROM authlog.schema_definitions").first
        return try stored?.decode(String.self, at: 0) != self.checksum
    }

    /// Applies the files and records their checksum, when the table for it exists; the caller holds the
    /// transaction.
    /// - Throws: as ``apply(on:)``.
    func applyAndRecord(on connection: Connection) async throws {
        try await self.apply(on: connection)
        guard try await Self.hasChecksumTable(on: connection) else { return }
        try await connection.query(
            """
            INSERT INTO authlog.schema_definitions (checksum) VALUES (\(self.checksum))
            ON CONFLICT (singleton) DO UPDATE SET checksum = EXCLUDED.checksum, applied_at = now()
            """
        )
    }

    private static func hasChecksumTable(on connection: Connection) async throws -> Bool {
        let exists = try await connection.query("SELECT to_regclass('authlog.schema_definitions') IS NOT NULL")
        return try exists.first?.decode(Bool.self, at: 0) == true
    }

    /// Applies every file in order; the caller holds the transaction.
    /// - Throws: ``StoreError`` `.insufficientPrivilege` naming the file, or the server's error.
    func apply(on connection: Connection) async throws {
        for file in self.files {
            try await MigrationPrivileges.naming(step: "apply \(file.name)") {
                try await connection.execute(SQLQuery(unsafeSQL: file.text))
            }
        }
    }
}
