import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

@Suite(.enabled(if: TestDatabase.isAvailable))
struct MigratorTests {
    @Test func migratingTwiceChangesNothing() async throws {
        let database = try await TestDatabase.make(migrated: false)
        let connection = try await database.connect()
        let first = try await Migrator().migrate(on: connection)
        #expect(first.map(\.version) == Migrator().migrations.map(\.version))
        #expect(first.count >= 3)
        let recorded = try await database.scalar("SELECT count(*) FROM authlog.schema_migrations")
        let second = try await Migrator().migrate(on: connection)
        #expect(second.isEmpty)
        #expect(try await database.scalar("SELECT count(*) FROM authlog.schema_migrations") == recorded)
    }

    @Test func aChangedAppliedMigrationIsRefused() async throws {
        let database = try await TestDatabase.make()
        let files = Migrator().migrations.map { migration in
            (
                name: "migrations/\(String(format: "%04d", migration.version))_\(migration.name).sql",
                text: migration.version == 2 ? migration.text + "\n-- edited\n" : migration.text
            )
        }
        let error = await #expect(throws: StoreError.self) {
            try await Migrator(files: files).migrate(on: database.connect())
        }
        #expect(error?.code == .schema)
        #expect(
            error?.message
                == "migration 2_create_projections was changed after it was applied; restore the original file"
        )
    }

    @Test func aDatabaseMigratedWithTheEarlierRoleBlockIsCurrent() async throws {
        // 0001 once created the roles unconditionally; its rewrite skips existing roles and does the same
        // to a database, so databases that applied the earlier text must not be refused.
        let earlierBlock = """
            DO $$
            BEGIN
                BEGIN
                    CREATE ROLE authlog_app NOLOGIN;
                EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
                END;
                BEGIN
                    CREATE ROLE authlog_reader NOLOGIN;
                EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
                END;
            END
            $$;

            """
        let current = try #require(Migrator().migrations.first)
        let start = try #require(current.text.range(of: "-- Roles are cluster-wide"))
        let end = try #require(current.text.range(of: "GRANT USAGE ON SCHEMA authlog TO authlog_app;"))
        var earlier = current.text
        earlier.replaceSubrange(
            start.lowerBound..<end.lowerBound,
            with: "-- Roles are cluster-wide; several databases of one cluster may migrate at once.\n"
                + earlierBlock + "\n"
        )
        let files = Migrator().migrations.map { migration in
            (
                name: "migrations/\(String(format: "%04d", migration.version))_\(migration.name).sql",
                text: migration.version == 1 ? earlier : migration.text
            )
        }
        let earlierChecksum = "9318aec9d47a7d21c16089d14a3162a277e13dee13fd6ae1921fc66292f22720"
        #expect(Migrator(files: files).migrations.first?.checksum == earlierChecksum)
        let database = try await TestDatabase.make(migrated: false)
        try await Migrator(files: files).migrate(on: database.connect())
        #expect(try await Migrator().migrate(on: database.connect()).isEmpty)
    }

    @Test func aNewMigrationIsAppliedInItsOwnTransaction() async throws {
        let database = try await TestDatabase.make()
        var files = Migrator().migrations.map { migration in
            (
                name: "migrations/\(String(format: "%04d", migration.version))_\(migration.name).sql",
                text: migration.text
            )
        }
        files.append((name: "migrations/9998_create_good.sql", text: "CREATE TABLE authlog.good (x int)"))
        files.append((name: "migrations/9999_create_bad.sql", text: "CREATE TABLE authlog.bad (x int); SELECT 1/0"))
        await #expect(throws: StoreError.self) { try await Migrator(files: files).migrate(on: database.connect()) }
        #expect(try await database.scalar("SELECT count(*) FROM authlog.schema_migrations WHERE version = 9998") == 1)
        #expect(try await database.scalar("SELECT count(*) FROM authlog.schema_migrations WHERE version = 9999") == 0)
        #expect(try await database.scalar("SELECT count(*) FROM pg_tables WHERE tablename = 'bad'") == 0)
    }
}
