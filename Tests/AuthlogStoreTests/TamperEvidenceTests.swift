import AuthlogCore
import AuthlogCrypto
import AuthlogStore
import AuthlogTesting
import Testing

@Suite(.enabled(if: TestDatabase.isAvailable))
struct TamperEvidenceTests {
    /// A database holding 20 events of generated traffic.
    private func seeded() async throws -> TestDatabase {
        let database = try await TestDatabase.make()
        let store = EventStore(pool: ConnectionPool(conninfo: database.conninfo))
        var traffic = TrafficGenerator(seed: 7)
        try await store.append(AppendCommand(events: Array(traffic.events(count: 20).prefix(20))))
        #expect(try await verify(database) == .intact(events: 20, headHash: try await headHash(database)))
        return database
    }

    @Test func anUpdatedEventIsNamed() async throws {
        let database = try await self.seeded()
        try await tamper(database, "UPDATE authlog.events SET user_agent = 'curl/8' WHERE position = 7")
        let report = try await verify(database)
        #expect(report == .broken(position: 7, reason: "hash does not match the event's contents"))
    }

    @Test func anUpdatedDataFieldIsNamed() async throws {
        let database = try await self.seeded()
        try await tamper(database, "UPDATE authlog.events SET data = data || '{\"x\": 1}' WHERE position = 12")
        guard case .broken(let position, _) = try await verify(database) else {
            Issue.record("an edited data field must break the chain")
            return
        }
        #expect(position == 12)
    }

    /// A deleted event in the middle (9) and the last one (20), which only the chain head reveals.
    @Test(arguments: [Int64(9), 20])
    func aDeletedEventIsNamed(deleted: Int64) async throws {
        let database = try await self.seeded()
        try await tamper(database, "DELETE FROM authlog.events WHERE position = \(deleted)")
        guard case .broken(let position, let reason) = try await verify(database) else {
            Issue.record("a deleted event must break the chain")
            return
        }
        #expect(position == deleted)
        #expect(reason.hasPrefix("missing"))
    }

    @Test func anInsertedEventIsNamedEvenWithAValidHash() async throws {
        let database = try await self.seeded()
        let connection = try await database.connect()
        let last = try await EventReader().events(after: 19, limit: 1, on: connection)[0]
        var forged = last.envelope
        forged.eventID = .version7()
        forged.streamVersion = 999
        let bytes = CanonicalEventEncoding.bytes(position: 21, envelope: forged, recordedAt: last.recordedAt)
        let hash = SHA256.hash(last.hash, bytes)
        try await tamper(
            database,
            """
            INSERT INTO authlog.events SELECT 21, '\(forged.eventID.lowercased)', stream, 999, type, occurred_at,
                recorded_at, outcome, reason, provider, user_id, session_id, client_id, ip, user_agent, request_id, data,
                schema_version, hash, '\\x\(Hex.encode(hash))' FROM authlog.events WHERE position = 20
            """
        )
        let report = try await verify(database)
        #expect(report == .broken(position: 21, reason: "inserted: the event lies beyond the chain head at 20"))
    }

    @Test func twoSwappedEventsAreNamed() async throws {
        let database = try await self.seeded()
        try await tamper(
            database,
            """
            UPDATE authlog.events SET position = 1000005 WHERE position = 5;
            UPDATE authlog.events SET position = 5 WHERE position = 11;
            UPDATE authlog.events SET position = 11 WHERE position = 1000005
            """
        )
        let report = try await verify(database)
        #expect(report == .broken(position: 5, reason: "prev_hash does not match the hash of event 4"))
    }
}
