import AuthlogCore
import AuthlogTesting
import Foundation
import Testing

@testable import AuthlogPostgres
@testable import AuthlogStore

@Suite(.enabled(if: TestDatabase.isAvailable))
struct ConnectionTests {
    @Test func parametersCarryNullQuotesJSONAndNonASCII() async throws {
        let connection = try await TestDatabase.make(migrated: false).connect()
        let tricky = "O'Brien \"quoted\" \\ back; DROP TABLE x; -- 한국어 🚀"
        let missing: String? = nil
        let row = try #require(
            try await connection.query(
                "SELECT \(tricky)::text, \(missing)::text IS NULL, (\(JSONValue.object([("k", .string(tricky))])))::jsonb->>'k'"
            ).first
        )
        #expect(try row.decode(String.self, at: 0) == tricky)
        #expect(try row.decode(Bool.self, at: 1))
        #expect(try row.decode(String.self, at: 2) == tricky)
    }

    @Test func arrayLiteralsCarryQuotesBackslashesNullsAndNonASCII() async throws {
        let connection = try await TestDatabase.make(migrated: false).connect()
        let elements: [String?] = [
            "plain", "with \"quotes\"", "back\\slash", nil, "NULL", "", "한국어 🚀", "{braces},commas",
        ]
        let rows = try await connection.query(
            "SELECT element, element IS NULL FROM unnest(\(ArrayLiteral(elements))::text[]) WITH ORDINALITY AS u(element, n) ORDER BY n"
        )
        #expect(try rows.rows.map { try $0.decode(String?.self, at: 0) } == elements)
    }

    @Test func typedDecodingReadsTimestampsUUIDsAndBytesExactly() async throws {
        let connection = try await TestDatabase.make(migrated: false).connect()
        let time = Timestamp(microsecondsSinceEpoch: 1_795_266_374_123_456)
        let id = UUID()
        let bytes: [UInt8] = [0, 1, 0xFE, 0xFF]
        let row = try #require(
            try await connection.query("SELECT \(time)::timestamptz, \(id)::uuid, \(ByteaValue(bytes))::bytea").first
        )
        #expect(try row.decode(Timestamp.self, at: 0) == time)
        #expect(try row.decode(UUID.self, at: 1) == id)
        #expect(try row.decode(ByteaValue.self, at: 2).bytes == bytes)
        #expect(throws: StoreError.self) { try row.decode(Int.self, at: 1) }
    }

    @Test func serverErrorsCarryTheSQLStateAndNeverTheBoundValues() async throws {
        let connection = try await TestDatabase.make(migrated: false).connect()
        let secret = "refresh-token-5ecret"
        let error = await #expect(throws: StoreError.self) {
            try await connection.query("SELECT \(secret)::integer")
        }
        #expect(error?.sqlState == "22P02")
        #expect(error?.description.contains(secret) == false)
        let query: SQLQuery = "SELECT \(secret)"
        #expect(query.description == "SELECT $1 [****]")
    }

    @Test func aFailedTransactionLeavesNothingBehind() async throws {
        let database = try await TestDatabase.make(migrated: false)
        let connection = try await database.connect()
        try await connection.execute("CREATE TABLE t (x int PRIMARY KEY)")
        await #expect(throws: StoreError.self) {
            try await connection.withTransaction { (connection: isolated Connection) in
                try connection.query("INSERT INTO t VALUES (1)")
                try connection.query("INSERT INTO t VALUES (1)")
            }
        }
        #expect(try await database.scalar("SELECT count(*) FROM t") == 0)
        #expect(await connection.isInTransaction == false)
    }

    @Test func aBadAddressFailsWithConnectionFailed() async throws {
        let error = await #expect(throws: StoreError.self) {
            try await Connection.connect(
                "host=/nonexistent-socket-dir port=1 user=nobody password=hunter2 connect_timeout=2"
            )
        }
        #expect(error?.code == .connectionFailed)
        #expect(error?.description.contains("hunter2") == false)
    }

    /// A statement prepared while its table was small can keep a sequential scan as the table grows, so the
    /// connection deallocates its statements after `replanAfterExecutions` executions and prepares them
    /// again, planned against the tables as they are then.
    @Test func preparedStatementsArePreparedAgainAfterManyExecutions() async throws {
        let connection = try await TestDatabase.make(migrated: false).connect()
        let lookup: SQLQuery = "SELECT count(*) FROM pg_class WHERE relname = ANY(\(ArrayLiteral(["t", "u"]))::name[])"
        func preparedName() async throws -> String? {
            try await connection.execute(
                "SELECT name FROM pg_prepared_statements WHERE statement LIKE 'SELECT count(*) FROM pg_class%'"
            ).first?.decode(String.self, at: 0)
        }
        try await connection.pipeline(Array(repeating: lookup, count: 20))
        let first = try #require(try await preparedName(), "prepared on its second sighting")
        var executions = 20
        while executions < PreparedStatements.replanAfterExecutions - 1000 {
            try await connection.pipeline(Array(repeating: lookup, count: 1000))
            executions += 1000
        }
        #expect(try await preparedName() == first, "kept until the limit")
        try await connection.pipeline(Array(repeating: lookup, count: 1000))
        try await connection.pipeline(Array(repeating: lookup, count: 20))
        let second = try #require(try await preparedName(), "prepared again")
        #expect(second != first, "the old statement was deallocated and the text prepared afresh")
        let old = try await connection.execute(
            SQLQuery(unsafeSQL: "SELECT count(*) FROM pg_prepared_statements WHERE name = '\(first)'")
        ).first
        #expect(try old?.decode(Int64.self, at: 0) == 0, "the first preparation is gone from the server")
    }
}
