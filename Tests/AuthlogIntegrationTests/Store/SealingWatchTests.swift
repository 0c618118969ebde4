import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

@testable import AuthlogServer

/// Sealing that stalls is on the record: a transaction holding the log head (a hung one, in any process) stops
/// every sealer; once the oldest queued event has waited a minute, `audit.sealing_stalled` (once, whichever
/// process sees it), and `audit.sealing_recovered` once the queue has caught up; `/metrics` shows the wait.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct SealingWatchTests {
    @Test func aStallIsRecordedOnceByEveryWatchAndItsEndWhenTheQueueCatchesUp() async throws {
        let database = try await TestDatabase.make()
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo))
        let holder = try await database.connect()
        try await holder.execute("BEGIN")
        try await holder.execute("SELECT size FROM authlog.log_head FOR UPDATE")
        let outage = try EventEnvelope(
            AuditWriteOutage(
                startedAt: "2026-12-08T00:00:00Z",
                endedAt: "2026-12-08T00:00:05Z",
                refusedRoutes: [:],
                error: "connection_failed"
            ),
            stream: StreamName(category: "audit", id: "writes"),
            outcome: .failure,
            reason: "database_unavailable"
        )
        _ = try await store.append(AppendCommand(outage))

        // Within the threshold: the wait is shown, nothing is recorded.
        try await SealingWatch(store: store).check()
        #expect(
            try await database.scalar("SELECT count(*) FROM authlog.event_records WHERE type = 'audit.sealing_stalled'")
                == 0
        )
        #expect(store.integrity.snapshot.unsealedEvents == 1)

        // Two minutes on, as two processes see it: one event.
        let later: @Sendable () -> Timestamp = {
            Timestamp(microsecondsSinceEpoch: Timestamp.now().microsecondsSinceEpoch + 120_000_000)
        }
        let watch = SealingWatch(store: store, clock: later)
        try await watch.check()
        try await watch.check()
        try await SealingWatch(store: store, clock: later).check()
        #expect(
            try await database.scalar("SELECT count(*) FROM authlog.event_records WHERE type = 'audit.sealing_stalled'")
                == 1
        )
        #expect(store.integrity.snapshot.oldestUnsealedWaitSeconds >= 119)
        #expect(store.integrity.snapshot.unsealedEvents >= 2, "the stall's own event waits in the queue too")
        let metrics = LogIntegrityMetrics.lines(store.integrity)
        #expect(metrics.contains { $0.hasPrefix("authlog_log_oldest_unsealed_seconds 1") })

        // The holder lets go: everything is sealed, and the next look records the end.
        try await holder.execute("ROLLBACK")
        try await store.sealPending()
        try await watch.check()
        try await store.sealPending()
        let rows = try await database.connect().query(
            """
            SELECT type, reason, data->>'stalled_since', data->>'waited_seconds' FROM authlog.events
            WHERE type LIKE 'audit.sealing_%' ORDER BY position
            """
        ).rows
        #expect(rows.count == 2)
        let first = try #require(rows.first)
        let last = try #require(rows.last)
        #expect(try first.decode(String.self, at: 0) == "audit.sealing_stalled")
        #expect(try first.decode(String?.self, at: 1) == "sealing_stalled")
        let waited = try first.decode(String?.self, at: 3)
        #expect((waited.flatMap { Int($0) } ?? 0) >= 119)
        #expect(try last.decode(String.self, at: 0) == "audit.sealing_recovered")
        #expect(try last.decode(String?.self, at: 2) == first.decode(String?.self, at: 2), "the same stall")
        #expect(store.integrity.snapshot.oldestUnsealedWaitSeconds == 0)
        #expect(store.integrity.snapshot.unsealedEvents == 0)
    }
}
