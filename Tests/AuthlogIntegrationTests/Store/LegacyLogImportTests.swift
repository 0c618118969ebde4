import AuthlogCore
import AuthlogCrypto
import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

/// Migration 6 moves the events of the old single-writer chain into the transparency log: each keeps its
/// position, the log verifies, and a broken old chain stops the migration with its position.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct LegacyLogImportTests {
    /// The migrations before the transparency log.
    private static var upToFive: [(name: String, text: String)] {
        Migrator().migrations.filter { $0.version <= 5 }.map { migration in
            (
                name: "migrations/\(String(format: "%04d", migration.version))_\(migration.name).sql",
                text: migration.text
            )
        }
    }

    /// A database at migration 5 holding `count` events written as the old sequencer wrote them.
    private func legacyDatabase(count: Int, breakingAt broken: Int64? = nil) async throws -> (TestDatabase, [UUID]) {
        let database = try await TestDatabase.make(migrated: false)
        let connection = try await database.connect()
        try await Migrator(files: Self.upToFive).migrate(on: connection)
        var traffic = TrafficGenerator(seed: 5)
        var previous = CanonicalEventEncoding.legacyGenesisHash
        var ids: [UUID] = []
        var versions: [String: Int32] = [:]
        let recordedAt = Timestamp.now()
        var statements: [String] = []
        for (index, var event) in traffic.events(count: count).prefix(count).enumerated() {
            let position = Int64(index + 1)
            let version = (versions[event.stream.rawValue] ?? 0) + 1
            versions[event.stream.rawValue] = version
            event.streamVersion = version
            let hash = SHA256.hash(
                previous,
                CanonicalEventEncoding.legacyBytes(position: position, envelope: event, recordedAt: recordedAt)
            )
            let reason = position == broken ? "'tampered'" : event.reason.map { "'\($0)'" } ?? "NULL"
            statements.append(
                """
                INSERT INTO authlog.events (position, event_id, stream, stream_version, type, occurred_at, recorded_at,
                    outcome, reason, provider, user_id, session_id, client_id, ip, user_agent, request_id, data,
                    schema_version, prev_hash, hash)
                VALUES (\(position), '\(event.eventID.lowercased)', '\(event.stream.rawValue)', \(version),
                    '\(event.type.rawValue)', '\(event.occurredAt)', '\(recordedAt)', '\(event.outcome.rawValue)',
                    \(reason), \(event.provider.map { "'\($0)'" } ?? "NULL"),
                    \(event.userID.map { "'\($0.lowercased)'" } ?? "NULL"),
                    \(event.sessionID.map { "'\($0.lowercased)'" } ?? "NULL"),
                    \(event.clientID.map { "'\($0)'" } ?? "NULL"), \(event.ip.map { "'\($0)'" } ?? "NULL"),
                    \(event.userAgent.map { "'\($0.replacingOccurrences(of: "'", with: "''"))'" } ?? "NULL"),
                    \(event.requestID.map { "'\($0)'" } ?? "NULL"),
                    '\(event.data.canonicalText.replacingOccurrences(of: "'", with: "''"))', \(event.schemaVersion),
                    '\\x\(Hex.encode(previous))', '\\x\(Hex.encode(hash))')
                """
            )
            previous = hash
            ids.append(event.eventID)
        }
        statements.append("UPDATE authlog.chain_head SET position = \(count), hash = '\\x\(Hex.encode(previous))'")
        try await connection.execute(SQLQuery(unsafeSQL: statements.joined(separator: ";\n")))
        return (database, ids)
    }

    @Test func everyEventKeepsItsPositionAndTheLogVerifies() async throws {
        let (database, ids) = try await self.legacyDatabase(count: 150)
        let applied = try await Migrator().migrate(on: database.connect())
        #expect(applied.map(\.version).contains(6))
        let rows = try await database.connect().query(
            "SELECT position, event_id::text FROM authlog.events ORDER BY position"
        )
        #expect(rows.rows.count == 150)
        for (index, row) in rows.rows.enumerated() {
            #expect(try row.decode(Int64.self, at: 0) == Int64(index + 1))
            #expect(try row.decode(String.self, at: 1) == ids[index].lowercased)
        }
        #expect(try await database.scalar("SELECT count(*) FROM pg_tables WHERE tablename = 'events_v1'") == 0)
        #expect(try await verify(database) == intact(database))
        // The moved log takes new events after the old ones.
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo))
        #expect(try await store.appendSealed([AppendCommand(failedSignin())])[0].get().lastPosition == 151)
    }

    /// Migration 8 gives the events already sealed the month they were sealed in (months follow positions),
    /// and the partitioned log verifies.
    @Test func monthlyPartitionsTakeEachSealedEventsMonth() async throws {
        let (database, _) = try await self.legacyDatabase(count: 150)
        let upToSeven = Migrator().migrations.filter { $0.version <= 7 }.map { migration in
            (
                name: "migrations/\(String(format: "%04d", migration.version))_\(migration.name).sql",
                text: migration.text
            )
        }
        try await Migrator(files: upToSeven).migrate(on: database.connect())
        try await database.connect().execute(
            """
            ALTER TABLE authlog.log_leaves DISABLE TRIGGER USER;
            UPDATE authlog.log_leaves SET sealed_at = '2024-01-15T10:00:00Z' WHERE position <= 50;
            UPDATE authlog.log_leaves SET sealed_at = '2024-02-10T10:00:00Z' WHERE position BETWEEN 51 AND 100;
            ALTER TABLE authlog.log_leaves ENABLE TRIGGER USER
            """
        )
        let applied = try await Migrator().migrate(on: database.connect())
        #expect(applied.map(\.version).contains(8))
        let months = try await database.connect().query(
            """
            SELECT to_char(log_month, 'YYYY-MM'), count(*), min(position), max(position)
            FROM authlog.events GROUP BY 1 ORDER BY 1
            """
        )
        let summary = try months.rows.map {
            "\(try $0.decode(String.self, at: 0)):\(try $0.decode(Int64.self, at: 1)):\(try $0.decode(Int64.self, at: 2))"
        }
        #expect(summary.count == 3)
        #expect(summary.prefix(2) == ["2024-01:50:1", "2024-02:50:51"])
        #expect(summary.last?.hasSuffix(":50:101") == true, "\(summary)")
        #expect(
            try await database.scalar(
                "SELECT count(*) FROM pg_class WHERE relname IN ('event_records_y2024m01', 'log_leaves_y2024m02')"
            ) == 2
        )
        #expect(try await verify(database) == intact(database))
    }

    @Test func aBrokenOldChainStopsTheMigrationAndNamesThePosition() async throws {
        let (database, _) = try await self.legacyDatabase(count: 40, breakingAt: 23)
        let error = await #expect(throws: StoreError.self) { try await Migrator().migrate(on: database.connect()) }
        #expect(error?.message.contains("the old hash chain is broken at position 23") == true)
        #expect(try await database.scalar("SELECT max(version) FROM authlog.schema_migrations") == 5)
        #expect(try await database.scalar("SELECT count(*) FROM authlog.events") == 40, "nothing was moved")
    }
}
