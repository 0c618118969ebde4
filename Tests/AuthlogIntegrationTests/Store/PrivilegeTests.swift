import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

@Suite(.enabled(if: TestDatabase.isAvailable))
struct PrivilegeTests {
    /// A login role that is a member of `group`, so the test can connect with exactly that group's rights.
    private func loginRole(in group: String, on database: TestDatabase) async throws -> String {
        let name = "login_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        try await database.connect().execute(SQLQuery(unsafeSQL: "CREATE ROLE \(name) LOGIN IN ROLE \(group)"))
        return String(name)
    }

    /// Every table of the log that only grows.
    static let appendOnlyTables = ["authlog.event_records", "authlog.log_leaves", "authlog.checkpoints"]

    @Test func theAppRoleCanAppendButNeverChangeTheLog() async throws {
        let database = try await TestDatabase.make()
        let role = try await self.loginRole(in: "authlog_app", on: database)
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo(asUser: role)))
        try await store.append(failedSignin())
        try await store.sealPending()
        let app = try await Connection.connect(database.conninfo(asUser: role))
        #expect(try await app.query("SELECT count(*) FROM authlog.events").first?.decode(Int.self, at: 0) == 1)
        for table in Self.appendOnlyTables + ["authlog.log_head"] {
            for statement in ["DELETE FROM \(table)", "TRUNCATE \(table)"] {
                let error = await #expect(throws: StoreError.self) {
                    try await app.execute(SQLQuery(unsafeSQL: statement))
                }
                #expect(error?.sqlState == "42501", "\(statement) must be refused")
            }
        }
        for statement in [
            "UPDATE authlog.event_records SET reason = 'x'", "UPDATE authlog.log_leaves SET leaf_hash = leaf_hash",
            "UPDATE authlog.log_head SET size = 0, root = sha256(''::bytea), frontier = ''::bytea",
        ] {
            let error = await #expect(throws: StoreError.self) { try await app.execute(SQLQuery(unsafeSQL: statement)) }
            #expect(error?.sqlState == "42501", "\(statement) must be refused")
        }
        #expect(try await positions(in: database) == [1])
    }

    /// The server's role keeps the months (serve's upkeep): it creates partitions ahead and moves the log to
    /// a new month, but cannot move it by hand or drop a month.
    @Test func theAppRoleMovesTheLogToANewMonthButCannotDropOne() async throws {
        let database = try await TestDatabase.make()
        let owner = try await database.connect()
        try await owner.execute(
            """
            SELECT authlog.create_log_partitions('2025-06-01', '2025-06-01');
            UPDATE authlog.log_epoch SET month = '2025-06-01'
            """
        )
        let role = try await self.loginRole(in: "authlog_app", on: database)
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo(asUser: role)))
        _ = await store.appendSealed([AppendCommand(failedSignin())])
        let app = try await Connection.connect(database.conninfo(asUser: role))
        let month = try await LogMonths.prepare(on: app)
        #expect(month == String(Timestamp.now().description.prefix(7)) + "-01")
        _ = await store.appendSealed([AppendCommand(failedSignin())])
        let months = try await app.query("SELECT log_month::text FROM authlog.events ORDER BY position")
        #expect(try months.rows.map { try $0.decode(String.self, at: 0) } == ["2025-06-01", month])
        let ahead = try await database.scalar(
            """
            SELECT count(*) FROM pg_class
            WHERE relname = 'event_records_' || to_char(date_trunc('month', now()) + interval '2 months', '"y"YYYY"m"MM')
            """
        )
        #expect(ahead == 1, "partitions two months ahead")
        for statement in [
            "DROP TABLE authlog.event_records_y2025m06", "DROP TABLE authlog.log_leaves_y2025m06",
            "UPDATE authlog.log_epoch SET month = '2025-01-01'",
            "INSERT INTO authlog.log_retention VALUES ('2025-06-01', '{}', 12, 0, 0, '', 0, '{}', now(), 'x')",
        ] {
            let error = await #expect(throws: StoreError.self) { try await app.execute(SQLQuery(unsafeSQL: statement)) }
            #expect(error?.sqlState == "42501", "\(statement) must be refused")
        }
    }

    @Test func theTriggersRefuseChangesEvenForTheOwner() async throws {
        let database = try await TestDatabase.make()
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo))
        try await store.append(failedSignin())
        try await store.sealPending()
        let owner = try await database.connect()
        try await owner.execute(
            "INSERT INTO authlog.checkpoints VALUES (1, (SELECT root FROM authlog.log_head), 'k', 'note', now())"
        )
        for table in Self.appendOnlyTables {
            for statement in [
                "UPDATE \(table) SET signed_at = signed_at", "DELETE FROM \(table)", "TRUNCATE \(table) CASCADE",
            ] {
                let sql =
                    table == "authlog.checkpoints"
                    ? statement
                    : statement.replacingOccurrences(
                        of: "SET signed_at = signed_at",
                        with: table == "authlog.log_leaves" ? "SET sealed_at = sealed_at" : "SET reason = 'x'"
                    )
                let error = await #expect(throws: StoreError.self) { try await owner.execute(SQLQuery(unsafeSQL: sql)) }
                #expect(error?.message.contains("append-only") == true, "\(sql)")
            }
        }
        let rewind = await #expect(throws: StoreError.self) {
            try await owner.execute(
                "UPDATE authlog.log_head SET size = 0, root = sha256(''::bytea), frontier = ''::bytea"
            )
        }
        #expect(rewind?.message.contains("only grows") == true)
        #expect(try await positions(in: database) == [1])
    }

    @Test func theAppRoleCannotDisableTheTriggers() async throws {
        let database = try await TestDatabase.make()
        let role = try await self.loginRole(in: "authlog_app", on: database)
        let app = try await Connection.connect(database.conninfo(asUser: role))
        for statement in [
            "ALTER TABLE authlog.event_records DISABLE TRIGGER event_records_append_only_rows",
            "ALTER TABLE authlog.event_records DISABLE TRIGGER USER",
            "ALTER TABLE authlog.log_leaves DISABLE TRIGGER ALL",
            "DROP TRIGGER log_head_only_grows ON authlog.log_head",
        ] {
            let error = await #expect(throws: StoreError.self) { try await app.execute(SQLQuery(unsafeSQL: statement)) }
            #expect(error?.sqlState == "42501", "\(statement) must be refused: it needs ownership of the table")
            #expect(error?.message.contains("must be owner") == true)
        }
        let enabled = try await database.scalar(
            """
            SELECT count(*) FROM pg_trigger
            WHERE tgrelid IN ('authlog.event_records'::regclass, 'authlog.log_leaves'::regclass,
                              'authlog.checkpoints'::regclass, 'authlog.log_head'::regclass)
              AND NOT tgisinternal AND tgenabled = 'O'
            """
        )
        // The report roll-ups' counting triggers on event_records are gone (migration 28): the writer counts.
        #expect(enabled == 8, "every append-only trigger still enabled")
    }

    @Test func migrateWithoutCreateRoleNamesThePrivilege() async throws {
        // Roles are cluster-wide, and the shared cluster has authlog_app already: a fresh cluster has none.
        let cluster = try await PrivateCluster.start(migrated: false)
        defer { cluster.remove() }
        let admin = try await Connection.connect(cluster.conninfo)
        try await admin.execute("CREATE ROLE migrator LOGIN; GRANT CREATE ON DATABASE authlog TO migrator")
        let migrator = try await Connection.connect(cluster.conninfo + " user=migrator")
        let error = await #expect(throws: StoreError.self) { try await Migrator().migrate(on: migrator) }
        #expect(error?.code == .insufficientPrivilege)
        #expect(
            error?.description == "insufficient_privilege: authlog migrate needs the CREATEROLE privilege to create "
                + "the roles authlog_app and authlog_reader (or create them first with deploy/roles.sql)"
        )
        #expect(try await cluster.scalar("SELECT count(*) FROM pg_namespace WHERE nspname = 'authlog'") == 0)

        try await admin.execute(
            """
            REVOKE CREATE ON DATABASE authlog FROM migrator;
            CREATE ROLE authlog_app NOLOGIN; CREATE ROLE authlog_reader NOLOGIN
            """
        )
        let noCreate = await #expect(throws: StoreError.self) { try await Migrator().migrate(on: migrator) }
        #expect(
            noCreate?.message == "authlog migrate needs the CREATE privilege on database authlog to create the schemas "
                + "authlog and dashboard (GRANT CREATE ON DATABASE authlog TO migrator)"
        )
    }

    @Test func theRecommendedRolesSeparateOwnerServiceAndReader() async throws {
        let cluster = try await PrivateCluster.start(migrated: false)
        defer { cluster.remove() }
        let script = RepositoryFiles.url("deploy/roles.sql")
        let admin = try await Connection.connect(cluster.conninfo)
        try await admin.execute(SQLQuery(unsafeSQL: try String(contentsOf: script, encoding: .utf8)))
        try await admin.execute("CREATE ROLE alice LOGIN; GRANT authlog_owner TO alice")
        // The owner role has no CREATEROLE: the script created the group roles, so migrate needs none.
        let ownerIsPlain = try await cluster.scalar(
            "SELECT count(*) FROM pg_roles WHERE rolname = 'authlog_owner' AND NOT rolcreaterole AND NOT rolcanlogin"
        )
        #expect(ownerIsPlain == 1)
        let owner = cluster.conninfo + " user=alice options='-c role=authlog_owner'"
        try await Migrator().migrate(on: try await Connection.connect(owner))
        #expect(
            try await cluster.scalar(
                "SELECT count(*) FROM pg_tables WHERE schemaname = 'authlog' AND tableowner <> 'authlog_owner'"
            ) == 0
        )
        let ownedSchemas = try await cluster.scalar(
            """
            SELECT count(*) FROM pg_namespace
            WHERE nspname IN ('authlog', 'dashboard') AND nspowner = 'authlog_owner'::regrole
            """
        )
        #expect(ownedSchemas == 2)

        let service = try await Connection.connect(cluster.conninfo + " user=authlog_service")
        let refused = await #expect(throws: StoreError.self) {
            try await service.execute("ALTER TABLE authlog.event_records DISABLE TRIGGER USER")
        }
        #expect(refused?.sqlState == "42501")
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: cluster.conninfo + " user=authlog_service"))
        try await store.append(failedSignin())
        try await store.sealPending()

        // What the documentation warns about: the owner can disable the trigger and edit history, and
        // verification is what catches it.
        let tamperer = try await Connection.connect(owner)
        try await tamperer.execute(
            """
            BEGIN; ALTER TABLE authlog.event_records DISABLE TRIGGER USER;
            UPDATE authlog.event_records SET reason = 'edited';
            ALTER TABLE authlog.event_records ENABLE TRIGGER USER; COMMIT
            """
        )
        let report = try await LogVerifier(pageSize: 100).verify(on: admin)
        #expect(
            report == .broken(position: 1, reason: "edited: the event's contents do not match its digest"),
            "verify catches the owner's edit"
        )

        let dashboards = try await Connection.connect(cluster.conninfo + " user=authlog_dashboards")
        try await dashboards.query("SELECT * FROM dashboard.signins_by_provider")
        await #expect(throws: StoreError.self) { try await dashboards.query("SELECT * FROM authlog.events") }
    }

    @Test func theReaderRoleSeesDashboardViewsOnly() async throws {
        let database = try await TestDatabase.make()
        let role = try await self.loginRole(in: "authlog_reader", on: database)
        let reader = try await Connection.connect(database.conninfo(asUser: role))
        try await reader.query("SELECT * FROM dashboard.signins_by_provider")
        try await reader.query("SELECT * FROM dashboard.active_sessions")
        let error = await #expect(throws: StoreError.self) { try await reader.query("SELECT * FROM authlog.events") }
        #expect(error?.sqlState == "42501")
    }
}
