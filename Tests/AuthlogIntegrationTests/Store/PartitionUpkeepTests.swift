import AuthlogStore
import AuthlogTesting
import Testing

/// The monthly partition upkeep that every `serve` process runs (migration 11).
@Suite(.enabled(if: TestDatabase.isAvailable))
struct PartitionUpkeepTests {
    /// Several servers' upkeep at once: each month's partitions are made by exactly one caller, and no caller
    /// fails with "relation already exists".
    @Test func concurrentUpkeepMakesEachPartitionOnceAndNoCallerFails() async throws {
        let database = try await TestDatabase.make()
        let created = try await withThrowingTaskGroup(of: Int64.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    let connection = try await database.connect()
                    let rows = try await connection.query(
                        "SELECT authlog.create_log_partitions('2031-01-01', '2032-12-01')"
                    )
                    return try rows.first?.decode(Int64.self, at: 0) ?? -1
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(created == 48, "24 months of two tables, each made once")
        let partitions = try await database.scalar(
            "SELECT count(*) FROM pg_class WHERE relkind = 'r' AND relname ~ '^(event_records|log_leaves)_y203[12]m[0-9]{2}$'"
        )
        #expect(partitions == 48)
    }
}
