import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import Foundation
import Synchronization
import Testing

@testable import AuthlogServer

/// Sealing that stops is on the record: a transaction holding the log head (a hung one, in any process) stops
/// every sealer; once the same entry has stayed at the head of the queue for a minute, `audit.sealing_stalled`,
/// once for every process watching (two at once, and one started during the stall), and `audit.sealing_recovered`
/// once the head moves on, recorded by whichever process sees it; `/metrics` shows the wait.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct SealingWatchTests {
    /// A monotonic clock that moves only when the test moves it.
    final class ManualClock: Sendable {
        private let start = ContinuousClock.now
        private let offset = Mutex(Duration.zero)
        func now() -> ContinuousClock.Instant { self.start + self.offset.withLock { $0 } }
        func advance(_ duration: Duration) { self.offset.withLock { $0 += duration } }
    }

    /// An ordinary event to queue: a write outage on `stream`.
    private func outage(on stream: StreamName = StreamName(category: "audit", id: "writes")) throws -> AppendCommand {
        AppendCommand(
            try EventEnvelope(
                AuditWriteOutage(
                    startedAt: "2026-12-08T00:00:00Z",
                    endedAt: "2026-12-08T00:00:05Z",
                    refusedRoutes: [:],
                    error: "connection_failed"
                ),
                stream: stream,
                outcome: .failure,
                reason: "database_unavailable"
            )
        )
    }

    private func count(_ type: String, in database: TestDatabase) async throws -> Int64? {
        try await database.scalar("SELECT count(*) FROM authlog.event_records WHERE type = \(type)")
    }

    @Test func aStallIsRecordedOnceByEveryWatchAndItsEndByAnyOfThem() async throws {
        let database = try await TestDatabase.make()
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo))
        let holder = try await database.connect()
        try await holder.execute("BEGIN")
        try await holder.execute("SELECT size FROM authlog.log_head FOR UPDATE")
        _ = try await store.append(try self.outage())
        let clock = ManualClock()
        let first = SealingWatch(store: store, clock: { clock.now() })
        // The second process: a store of its own, with its own connections and writer.
        let second = SealingWatch(
            store: PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo)),
            clock: { clock.now() }
        )

        // Under the threshold: the queue is shown, nothing is recorded.
        try await first.check()
        try await second.check()
        clock.advance(.seconds(59))
        try await first.check()
        #expect(try await self.count("audit.sealing_stalled", in: database) == 0)
        #expect(store.integrity.snapshot.unsealedEvents == 1)
        #expect(store.integrity.snapshot.oldestUnsealedWaitSeconds == 59)

        // A minute on, both processes look at once: one event.
        clock.advance(.seconds(2))
        async let one: Void = first.check()
        async let other: Void = second.check()
        _ = try await (one, other)
        try await first.check()
        #expect(try await self.count("audit.sealing_stalled", in: database) == 1)
        #expect(store.integrity.snapshot.unsealedEvents == 2, "the stall's own event waits in the queue too")
        #expect(LogIntegrityMetrics.lines(store.integrity).contains("authlog_log_oldest_unsealed_seconds 61"))

        // An event of another type in the stream (none is written there; only authlog writes `audit.*`) neither
        // ends nor hides the stall.
        _ = try await store.append(try self.outage(on: SealingWatch.stream))
        // A process started during the stall finds it open and records nothing more, however long it watches.
        let restarted = SealingWatch(store: store, clock: { clock.now() })
        try await restarted.check()
        clock.advance(.seconds(120))
        try await restarted.check()
        #expect(try await self.count("audit.sealing_stalled", in: database) == 1)

        // The holder lets go: the head moves on, and the process that sees it first records the end; the others
        // find it recorded.
        try await holder.execute("ROLLBACK")
        try await store.sealPending()
        try await restarted.check()
        try await first.check()
        try await second.check()
        try await store.sealPending()
        let rows = try await database.connect().query(
            """
            SELECT type, reason, data->>'stalled_since', data->>'waited_seconds', data->>'head_queued'
            FROM authlog.events WHERE type LIKE 'audit.sealing_%' ORDER BY position
            """
        ).rows
        #expect(
            try rows.map { try $0.decode(String.self, at: 0) } == ["audit.sealing_stalled", "audit.sealing_recovered"]
        )
        let stalled = try #require(rows.first)
        let recovered = try #require(rows.last)
        #expect(try stalled.decode(String?.self, at: 1) == "sealing_stalled")
        #expect(try stalled.decode(String?.self, at: 3) == "61")
        #expect(try stalled.decode(String?.self, at: 4) != nil)
        #expect(try recovered.decode(String?.self, at: 2) == stalled.decode(String?.self, at: 2), "the same stall")
        #expect(store.integrity.snapshot.oldestUnsealedWaitSeconds == 0)
        #expect(store.integrity.snapshot.unsealedEvents == 0)

        // A queue that keeps moving is no stall, however long the watch looks.
        for _ in 0..<3 {
            _ = try await store.append(try self.outage())
            try await first.check()
            clock.advance(.seconds(45))
            try await store.sealPending()
            try await first.check()
        }
        #expect(try await self.count("audit.sealing_stalled", in: database) == 1)
    }
}
