import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

/// `LogVerifier` reads the next page while it checks one (`LogVerifier+Pages.swift`): its verdicts at and
/// across page boundaries are those of a walk one page at a time.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct VerifyPageTests {
    /// A database holding 50 sealed events of generated traffic: five full pages of 10.
    private func seeded() async throws -> TestDatabase {
        let database = try await TestDatabase.make()
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo))
        var traffic = TrafficGenerator(seed: 37)
        try await store.append(AppendCommand(events: Array(traffic.events(count: 50).prefix(50))))
        try await store.sealPending()
        return database
    }

    private func verifyInPagesOfTen(_ database: TestDatabase) async throws -> LogVerifier.Report {
        try await LogVerifier(pageSize: 10, keys: nil).verify(on: database.connect())
    }

    @Test func aLogOfWholePagesIsIntactToItsLastEvent() async throws {
        let database = try await self.seeded()
        #expect(try await self.verifyInPagesOfTen(database) == intact(database))
    }

    /// The first event of a page read ahead (21), and the last of one (30).
    @Test(arguments: [Int64(21), 30])
    func anEditedEventOnAPageReadAheadIsNamed(position: Int64) async throws {
        let database = try await self.seeded()
        try await tamper(
            database,
            """
            UPDATE authlog.event_records SET user_agent = 'curl/8'
            WHERE event_id = (SELECT event_id FROM authlog.log_leaves WHERE position = \(position))
            """
        )
        #expect(
            try await self.verifyInPagesOfTen(database)
                == .broken(position: position, reason: "edited: the event's contents do not match its digest")
        )
    }

    @Test func anEventDeletedAtAPageBoundaryIsNamed() async throws {
        let database = try await self.seeded()
        try await tamper(database, "DELETE FROM authlog.log_leaves WHERE position = 11")
        #expect(
            try await self.verifyInPagesOfTen(database)
                == .broken(position: 11, reason: "missing: event 11 is absent (the next stored position is 12)")
        )
    }
}
