import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import Foundation
import Logging
import Synchronization

/// Watches the sealer's queue, once a second in every `serve` process (the background service `sealer`): the
/// oldest queued event's wait and the queue's span go to `/metrics` (``LogIntegrityStatus``), and a stall goes on
/// the record: `audit.sealing_stalled` once the oldest queued event has waited ``AuditSealingStalled/threshold``
/// seconds for its position, `audit.sealing_recovered` once none has. It sees what stops every sealer alike (one
/// that keeps failing, or all of them waiting on a log head a hung transaction holds), not only this process's.
/// Each event's id is made from the oldest queued event's time, so the processes that see one stall record it
/// once.
final class SealingWatch: Sendable {
    private let store: PostgresEventStore
    private let clock: @Sendable () -> Timestamp
    /// The stall this process sees: when its oldest queued event was recorded, and whether it is on the record.
    private let stall = Mutex<(since: Timestamp, recorded: Bool)?>(nil)

    /// A watch of `store`'s queue; `clock` tells the time (tests move it).
    init(store: PostgresEventStore, clock: @escaping @Sendable () -> Timestamp = { Timestamp.now() }) {
        self.store = store
        self.clock = clock
    }

    /// Reads the queue, notes it in the store's status, and records a stall's start or end when due.
    /// - Throws: ``StoreError`` when the queue cannot be read or an event cannot be appended (the next check
    ///   tries again).
    func check() async throws {
        let queue = try await self.store.pool.withConnection { try await Self.queue(on: $0) }
        let now = self.clock()
        let waited = queue.oldest.map { max(0, (now.microsecondsSinceEpoch - $0.microsecondsSinceEpoch) / 1_000_000) }
        self.store.integrity.queued(events: queue.span, oldestWaitSeconds: waited ?? 0)
        if let oldest = queue.oldest, let waited, waited >= Int64(AuditSealingStalled.threshold) {
            let stall = self.stall.withLock { stall in
                if stall == nil { stall = (oldest, false) }
                return stall
            }
            guard let stall, !stall.recorded else { return }
            let event = try EventEnvelope(
                AuditSealingStalled(
                    stalledSince: stall.since.description,
                    waitedSeconds: Int(waited),
                    queuedEvents: queue.span
                ),
                eventID: OnceEventID.make("sealing_stalled", "\(stall.since.microsecondsSinceEpoch)"),
                stream: StreamName(category: "audit", id: "sealer"),
                outcome: .failure,
                reason: "sealing_stalled"
            )
            _ = try await self.store.append(AppendCommand(event))
            self.stall.withLock { $0?.recorded = true }
        } else if let stall = self.stall.withLock({ $0 }) {
            if stall.recorded {
                let event = try EventEnvelope(
                    AuditSealingRecovered(stalledSince: stall.since.description, recoveredAt: now.description),
                    eventID: OnceEventID.make("sealing_recovered", "\(stall.since.microsecondsSinceEpoch)"),
                    stream: StreamName(category: "audit", id: "sealer"),
                    outcome: .success
                )
                _ = try await self.store.append(AppendCommand(event))
            }
            self.stall.withLock { $0 = nil }
        }
    }

    /// The queue's span (the newest queue number less the oldest, plus one: an upper bound of the events in it,
    /// read from the ends of its key) and when its oldest event was recorded (nil when empty, or when the oldest
    /// row names no event: a forged row the sealer refuses).
    private static func queue(on connection: Connection) async throws -> (span: Int64, oldest: Timestamp?) {
        let rows = try await connection.query(
            """
            SELECT coalesce(max(queued) - min(queued) + 1, 0),
                   (SELECT e.recorded_at FROM authlog.event_records e WHERE e.event_id =
                       (SELECT o.event_id FROM authlog.unsealed_events o ORDER BY o.queued LIMIT 1))
            FROM authlog.unsealed_events
            """
        )
        guard let row = rows.first else { return (0, nil) }
        return (try row.decode(Int64.self, at: 0), try row.decode(Timestamp?.self, at: 1))
    }
}
