import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import Foundation
import Synchronization

/// Watches the sealer's queue, once a second in every `serve` process (its own background service, apart from
/// the sealer's): the queue's span and how long its head entry has stayed there go to `/metrics`
/// (``LogIntegrityStatus``), and a stall goes on the record. The stall is judged by one clock, this process's
/// monotonic one: the same entry at the head of the queue for ``AuditSealingStalled/threshold`` seconds is
/// `audit.sealing_stalled`; that entry leaving the queue (sealed, or refused by the sealer) is
/// `audit.sealing_recovered`. It sees what stops
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
    /// The entry at the head of the queue as this process first saw it there.
    private struct HeadSighting {
        /// Its number in the queue.
        var queued: Int64
        /// When this process first saw it at the head (monotonic).
        var seenAt: ContinuousClock.Instant
        /// The wall time then: the stall's start, should it become one.
        var since: Timestamp
    }

    private let head = Mutex<HeadSighting?>(nil)

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
        let tracked = self.head.withLock { head -> HeadSighting? in
            guard let queued = look.headQueued else {
                head = nil
                return nil
            }
            if head?.queued != queued { head = HeadSighting(queued: queued, seenAt: now, since: Timestamp.now()) }
            return head
        }
        let stuck = tracked.map { (now - $0.seenAt).components.seconds } ?? 0
        self.store.integrity.queued(events: look.span, oldestWaitSeconds: stuck)
        if let open = look.openStall {
            guard open.stuckEntryGone else { return }
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
        /// The version of the episodes' stream (0: empty).
        var version: Int32
        /// The stall its newest start or end leaves open: its start, and whether its stuck entry has left the
        /// queue (sealed, or refused by the sealer).
        var openStall: (stalledSince: String, stuckEntryGone: Bool)?
    }

    /// One statement: the queue's ends (read from its key), the episodes' stream's version, and its newest start
    /// or end with whether that start's stuck entry is still queued (only authlog writes `audit.*` events, and
    /// only this watch writes this stream; the type filter keeps it so).
    static func look(on connection: Connection) async throws -> Look {
        let rows = try await connection.query(
            """
            SELECT (SELECT min(queued) FROM authlog.unsealed_events), (SELECT max(queued) FROM authlog.unsealed_events),
                   (SELECT max(stream_version) FROM authlog.event_records WHERE stream = \(Self.stream.rawValue)),
                   s.type, s.data->>'stalled_since',
                   NOT EXISTS (SELECT FROM authlog.unsealed_events u WHERE u.queued = s.stuck)
            FROM (SELECT 1) AS one LEFT JOIN LATERAL (
                SELECT type, data,
                       CASE WHEN data->>'head_queued' ~ '^[0-9]{1,18}$' THEN (data->>'head_queued')::bigint END AS stuck
                FROM authlog.event_records
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
            version: try row.decode(Int32?.self, at: 2) ?? 0
        )
        if try row.decode(String?.self, at: 3) == EventType.auditSealingStalled.rawValue {
            look.openStall = (try row.decode(String?.self, at: 4) ?? "", try row.decode(Bool?.self, at: 5) ?? true)
        }
        return look
    }
}
