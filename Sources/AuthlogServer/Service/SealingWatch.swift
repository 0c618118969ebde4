import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import Foundation
import Synchronization

/// Watches the sealer's queue, once a second in every `serve` process (its own background service, apart from
/// the sealer's): the queue's span and its oldest events' wait go to `/metrics` (``LogIntegrityStatus``), and a
/// stall goes on the record. The stall is judged by one clock, this process's monotonic one: the same entry at
/// the head of the queue for ``AuditSealingStalled/threshold`` seconds is `audit.sealing_stalled`; the head
/// moving past that entry (sealed, or refused by the sealer) is `audit.sealing_recovered`. It sees what stops
/// every sealer alike (one that keeps failing, or all of them waiting on a log head a hung transaction holds).
///
/// The episode lives in the stream `audit-sealer`, read back at every look and appended to with an expected
/// version: the processes that see one stall record it once (the others' appends fail and they read the winner's),
/// a process started during a stall finds it open and records its end, and a stall recorded whose answer was lost
/// is found in the stream. A new stall needs the head stuck for another whole threshold, so an episode never
/// flaps faster than that.
final class SealingWatch: Sendable {
    private let store: PostgresEventStore
    private let clock: @Sendable () -> ContinuousClock.Instant
    /// The entry at the head of the queue as this process first saw it there: its number, when (monotonic), and
    /// the wall time then.
    private let head = Mutex<(queued: Int64, seenAt: ContinuousClock.Instant, since: Timestamp)?>(nil)

    /// The stream of the episodes.
    static let stream = StreamName(category: "audit", id: "sealer")

    /// A watch of `store`'s queue; `clock` tells the monotonic time (tests move it).
    init(
        store: PostgresEventStore,
        clock: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
    ) {
        self.store = store
        self.clock = clock
    }

    /// Reads the queue and the episode, notes the queue in the store's status, and records a stall's start or
    /// end when due.
    /// - Throws: ``StoreError`` when the queue cannot be read or an event cannot be appended (the next look tries
    ///   again; a look that fails leaves the gauges at -1, unknown).
    func check() async throws {
        let look: Look
        do {
            look = try await self.store.pool.withConnection { try await Self.look(on: $0) }
        } catch {
            self.store.integrity.queued(events: -1, oldestWaitSeconds: -1)
            throw error
        }
        let now = self.clock()
        let tracked: (queued: Int64, seenAt: ContinuousClock.Instant, since: Timestamp)? = self.head.withLock { head in
            guard let queued = look.headQueued else {
                head = nil
                return nil
            }
            if head?.queued != queued { head = (queued, now, Timestamp.now()) }
            return head
        }
        let stuck = tracked.map { (now - $0.seenAt).components.seconds } ?? 0
        self.store.integrity.queued(events: look.span, oldestWaitSeconds: max(stuck, look.oldestWaitSeconds ?? 0))
        if let open = look.openStall {
            guard look.headQueued.map({ $0 > open.headQueued }) ?? true else { return }
            try await self.append(
                AuditSealingRecovered(stalledSince: open.stalledSince, recoveredAt: Timestamp.now().description),
                outcome: .success,
                reason: nil,
                expecting: look.version
            )
        } else if let tracked, stuck >= Int64(AuditSealingStalled.threshold) {
            try await self.append(
                AuditSealingStalled(
                    stalledSince: tracked.since.description,
                    waitedSeconds: Int(stuck),
                    headQueued: tracked.queued,
                    queuedEvents: look.span
                ),
                outcome: .failure,
                reason: "sealing_stalled",
                expecting: look.version
            )
        }
    }

    /// Appends `payload` to the episodes' stream at `version` (0: empty); another process that appended first
    /// wins, and the next look reads what it recorded.
    private func append(
        _ payload: some EventPayload,
        outcome: Outcome,
        reason: String?,
        expecting version: Int32
    ) async throws {
        let event = try EventEnvelope(payload, stream: Self.stream, outcome: outcome, reason: reason)
        do {
            _ = try await self.store.append(
                AppendCommand(event, expecting: version == 0 ? .noStream : .exactly(version))
            )
        } catch is WrongExpectedVersion {
            // Another process recorded this start or end first.
        }
    }

    /// What one look found.
    struct Look {
        /// The number of the entry at the head of the queue; nil when the queue is empty.
        var headQueued: Int64?
        /// The newest queue number less the oldest, plus one (0 when empty): an upper bound of its events.
        var span: Int64
        /// How long the oldest of the first hundred queued events has waited since it was recorded, by the
        /// database's clock; nil when none of them names a stored event.
        var oldestWaitSeconds: Int64?
        /// The version of the episodes' stream (0: empty).
        var version: Int32
        /// The stall its newest event leaves open: the stuck entry and when the stall began.
        var openStall: (headQueued: Int64, stalledSince: String)?
    }

    /// One statement: the queue's ends (read from its key), the wait of its first hundred events, the episodes'
    /// stream's version and its newest start or end (an event of another type that an ingest put in the stream
    /// neither opens nor closes an episode).
    static func look(on connection: Connection) async throws -> Look {
        let rows = try await connection.query(
            """
            SELECT (SELECT min(queued) FROM authlog.unsealed_events), (SELECT max(queued) FROM authlog.unsealed_events),
                   (SELECT extract(epoch FROM clock_timestamp() - min(e.recorded_at))::bigint
                    FROM (SELECT event_id FROM authlog.unsealed_events ORDER BY queued LIMIT 100) q
                    JOIN authlog.event_records e ON e.event_id = q.event_id),
                   (SELECT max(stream_version) FROM authlog.event_records WHERE stream = \(Self.stream.rawValue)),
                   s.type,
                   CASE WHEN s.data->>'head_queued' ~ '^[0-9]{1,18}$' THEN (s.data->>'head_queued')::bigint END,
                   s.data->>'stalled_since'
            FROM (SELECT 1) AS one LEFT JOIN LATERAL (
                SELECT type, data FROM authlog.event_records
                WHERE stream = \(Self.stream.rawValue)
                  AND type IN ('audit.sealing_stalled', 'audit.sealing_recovered')
                ORDER BY stream_version DESC LIMIT 1
            ) AS s ON true
            """
        )
        guard let row = rows.first else { return Look(span: 0, version: 0) }
        let first = try row.decode(Int64?.self, at: 0)
        let last = try row.decode(Int64?.self, at: 1)
        var look = Look(
            headQueued: first,
            span: first.flatMap { first in last.map { $0 - first + 1 } } ?? 0,
            oldestWaitSeconds: try row.decode(Int64?.self, at: 2),
            version: try row.decode(Int32?.self, at: 3) ?? 0
        )
        if try row.decode(String?.self, at: 4) == EventType.auditSealingStalled.rawValue,
            let stuck = try row.decode(Int64?.self, at: 5)
        {
            look.openStall = (stuck, try row.decode(String?.self, at: 6) ?? "")
        }
        return look
    }
}
