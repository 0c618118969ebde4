import AuthlogTesting
import Foundation
import Testing

@testable import AuthlogStore

/// `sql/views/` and `sql/functions/` hold exactly the views and functions the migrations leave, as they leave them.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct CurrentDefinitionsTests {
    /// The numbered migrations alone, without the current definitions.
    private static var migrationsOnly: [(name: String, text: String)] {
        Migrator().migrations.map { migration in
            (
                name: "migrations/\(String(format: "%04d", migration.version))_\(migration.name).sql",
                text: migration.text
            )
        }
    }

    /// Every view and function of the schemas authlog and dashboard: its definition as PostgreSQL prints it,
    /// its columns or signature, owner and grants.
    private static func snapshot(of database: TestDatabase) async throws -> [String: String] {
        let rows = try await database.connect().query(
            """
            SELECT 'views/' || n.nspname || '.' || c.relname || '.sql',
                   concat_ws(E'\\n', pg_get_viewdef(c.oid), pg_get_userbyid(c.relowner), c.relacl::text,
                             (SELECT string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod), ', '
                                                ORDER BY a.attnum)
                              FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0))
            FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname IN ('authlog', 'dashboard') AND c.relkind IN ('v', 'm')
            UNION ALL
            SELECT 'functions/' || n.nspname || '.' || p.proname || '.sql',
                   concat_ws(E'\\n', pg_get_functiondef(p.oid), pg_get_userbyid(p.proowner), p.proacl::text)
            FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
            WHERE n.nspname IN ('authlog', 'dashboard')
            """
        )
        var objects: [String: String] = [:]
        for row in rows.rows {
            let name = try row.decode(String.self, at: 0)
            #expect(objects[name] == nil, "\(name) names two objects (an overloaded function?)")
            objects[name] = try row.decode(String.self, at: 1)
        }
        return objects
    }

    @Test func everyViewAndFunctionHasExactlyOneFile() async throws {
        let database = try await TestDatabase.make()
        let objects = try await Self.snapshot(of: database)
        let files = Migrator().definitions.files
        #expect(files.map(\.name).sorted() == objects.keys.sorted())
        for file in files {
            let folder = file.name.hasPrefix("views/") ? "views/" : "functions/"
            let object = String(file.name.dropFirst(folder.count).dropLast(".sql".count))
            let statement =
                folder == "views/" ? "CREATE OR REPLACE VIEW \(object) AS" : "CREATE OR REPLACE FUNCTION \(object)("
            #expect(file.text.contains(statement), "\(file.name) must define \(object) with \(statement)")
        }
    }

    @Test func theFilesChangeNothingThatTheMigrationsLeft() async throws {
        let database = try await TestDatabase.make(migrated: false)
        try await Migrator(files: Self.migrationsOnly).migrate(on: database.connect())
        let migrated = try await Self.snapshot(of: database)
        // Nothing is pending: this applies the current definitions alone, in their own transaction.
        #expect(try await Migrator().migrate(on: database.connect()).isEmpty)
        let current = try await Self.snapshot(of: database)
        #expect(current.keys.sorted() == migrated.keys.sorted())
        for (name, definition) in migrated.sorted(by: { $0.key < $1.key }) {
            #expect(current[name] == definition, "\(name) differs from what the migrations left")
        }
    }

    @Test func theFunctionsComeBeforeTheViewsAndAViewAfterTheViewsItReads() async throws {
        let database = try await TestDatabase.make()
        let order = Migrator().definitions.files.map(\.name)
        let firstView = try #require(order.firstIndex { $0.hasPrefix("views/") })
        #expect(order[..<firstView].allSatisfy { $0.hasPrefix("functions/") })
        let dependencies = try await database.connect().query(
            """
            SELECT DISTINCT 'views/' || v.relnamespace::regnamespace || '.' || v.relname || '.sql',
                   'views/' || u.relnamespace::regnamespace || '.' || u.relname || '.sql'
            FROM pg_rewrite r
            JOIN pg_class v ON v.oid = r.ev_class
            JOIN pg_depend d ON d.objid = r.oid AND d.classid = 'pg_rewrite'::regclass
            JOIN pg_class u ON u.oid = d.refobjid AND u.relkind = 'v' AND u.oid <> v.oid
            WHERE v.relnamespace::regnamespace::text IN ('authlog', 'dashboard')
            """
        )
        #expect(!dependencies.rows.isEmpty)
        for row in dependencies.rows {
            let view = try row.decode(String.self, at: 0)
            let reads = try row.decode(String.self, at: 1)
            let viewIndex = try #require(order.firstIndex(of: view))
            let readsIndex = try #require(order.firstIndex(of: reads))
            #expect(readsIndex < viewIndex, "\(view) reads \(reads), so it must be applied after it")
        }
    }

    @Test func anUpToDateSchemaIsLeftAloneUntilTheFilesChange() async throws {
        let database = try await TestDatabase.make()
        let connection = try await database.connect()
        // A hand-made change the files would undo: it survives a migrate while the files are unchanged…
        try await connection.execute(
            "CREATE OR REPLACE FUNCTION authlog.log_month_lock_key() RETURNS bigint LANGUAGE sql IMMUTABLE AS 'SELECT 42::bigint'"
        )
        #expect(try await Migrator().migrate(on: connection).isEmpty)
        let kept = try await connection.query("SELECT authlog.log_month_lock_key()").first?.decode(Int64.self, at: 0)
        #expect(kept == 42)
        // …and is undone once the recorded checksum is not the files' one (as after an upgrade).
        try await connection.execute("UPDATE authlog.schema_definitions SET checksum = 'older files'")
        #expect(try await Migrator().migrate(on: connection).isEmpty)
        let restored = try await connection.query("SELECT authlog.log_month_lock_key()").first?.decode(
            Int64.self,
            at: 0
        )
        #expect(restored != 42)
        let recorded = try await connection.query("SELECT checksum FROM authlog.schema_definitions").first?
            .decode(String.self, at: 0)
        #expect(recorded == Migrator().definitions.checksum)
    }
}
