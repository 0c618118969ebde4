import AuthlogPostgres
import AuthlogTesting
import Testing

@testable import AuthlogStore

/// ``Connection/withTransaction(_:_:)`` in both forms, against the test cluster.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct TransactionTests {
    private struct Marker: Error, Equatable {
        var id: Int
    }

    private func makeTable() async throws -> (TestDatabase, Connection) {
        let database = try await TestDatabase.make(migrated: false)
        let connection = try await database.connect()
        try await connection.execute("CREATE TABLE t (x int PRIMARY KEY)")
        return (database, connection)
    }

    @Test func aSuccessfulBodyCommitsAndReturnsItsValue() async throws {
        let (database, connection) = try await self.makeTable()
        let value = try await connection.withTransaction { connection in
            try await connection.query("INSERT INTO t VALUES (1)")
            return 42
        }
        #expect(value == 42)
        #expect(try await database.scalar("SELECT count(*) FROM t") == 1)
        #expect(await connection.isInTransaction == false)
    }

    @Test func aThrowingBodyIsRolledBackAndItsErrorRethrownUnchanged() async throws {
        let (database, connection) = try await self.makeTable()
        let error = await #expect(throws: Marker.self) {
            try await connection.withTransaction { connection in
                try await connection.query("INSERT INTO t VALUES (1)")
                throw Marker(id: 7)
            }
        }
        #expect(error == Marker(id: 7))
        #expect(try await database.scalar("SELECT count(*) FROM t") == 0)
        #expect(await connection.isInTransaction == false)
    }

    @Test func theIsolatedFormRollsBackAndRethrowsToo() async throws {
        let (database, connection) = try await self.makeTable()
        let error = await #expect(throws: Marker.self) {
            try await connection.withTransaction { (connection: isolated Connection) in
                try connection.query("INSERT INTO t VALUES (1)")
                throw Marker(id: 8)
            }
        }
        #expect(error == Marker(id: 8))
        #expect(try await database.scalar("SELECT count(*) FROM t") == 0)
        let committed = try await connection.withTransaction { (connection: isolated Connection) in
            try connection.query("INSERT INTO t VALUES (2)").affectedRows
        }
        #expect(committed == 1)
        #expect(try await database.scalar("SELECT count(*) FROM t") == 1)
    }

    @Test func aServerErrorInTheBodyComesOutAsItsStoreError() async throws {
        let (database, connection) = try await self.makeTable()
        let error = await #expect(throws: StoreError.self) {
            try await connection.withTransaction { connection in
                try await connection.query("INSERT INTO t VALUES (1)")
                try await connection.query("INSERT INTO t VALUES (1)")
            }
        }
        #expect(error?.sqlState == "23505")
        #expect(try await database.scalar("SELECT count(*) FROM t") == 0)
        #expect(await connection.isInTransaction == false)
    }

    @Test func aReadOnlyTransactionRefusesAWrite() async throws {
        let (database, connection) = try await self.makeTable()
        let error = await #expect(throws: StoreError.self) {
            try await connection.withTransaction(TransactionOptions(isReadOnly: true)) { connection in
                try await connection.query("INSERT INTO t VALUES (1)")
            }
        }
        #expect(error?.sqlState == "25006")
        #expect(try await database.scalar("SELECT count(*) FROM t") == 0)
        #expect(await connection.isInTransaction == false)
    }

    @Test func theIsolationLevelIsTheOneAskedFor() async throws {
        let (_, connection) = try await self.makeTable()
        let asked = try await connection.withTransaction(.readOnlySnapshot) { connection in
            try await connection.query("SHOW transaction_isolation").first?.decode(String.self, at: 0)
        }
        #expect(asked == "repeatable read")
        let plain = try await connection.withTransaction { connection in
            try await connection.query("SHOW transaction_isolation").first?.decode(String.self, at: 0)
        }
        #expect(plain == "read committed")
    }

    @Test func discardingChangesEndsWithRollbackAfterSuccess() async throws {
        let (database, connection) = try await self.makeTable()
        let value = try await connection.withTransaction(TransactionOptions(discardsChanges: true)) { connection in
            try await connection.query("INSERT INTO t VALUES (1)").affectedRows
        }
        #expect(value == 1)
        #expect(try await database.scalar("SELECT count(*) FROM t") == 0)
        #expect(await connection.isInTransaction == false)
    }

    @Test func aFailingCommitThrowsTheServersError() async throws {
        let database = try await TestDatabase.make(migrated: false)
        let connection = try await database.connect()
        try await connection.execute("CREATE TABLE t (x int UNIQUE DEFERRABLE INITIALLY DEFERRED)")
        let error = await #expect(throws: StoreError.self) {
            try await connection.withTransaction { connection in
                try await connection.query("INSERT INTO t VALUES (1), (1)")
            }
        }
        #expect(error?.sqlState == "23505")
        #expect(try await database.scalar("SELECT count(*) FROM t") == 0)
        #expect(await connection.isInTransaction == false)
    }
}
