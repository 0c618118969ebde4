import AuthlogCore
import AuthlogCrypto
import AuthlogPostgres
import Foundation

/// Records the queue rows the sealer refused (kept in `authlog.refused_events`) as `audit.events_refused`
/// events, at most 100 rows each, then removes the rows. The event id is derived from the rows' queue
/// numbers, so a record interrupted between its append and the removal is not recorded twice.
enum RefusedEvents {
    /// Rows per event.
    static let rowsPerEvent = 100
    /// Events per call: a flood of forged rows is recorded over several calls, not in one unbounded pass.
    static let eventsPerCall = 10

    /// Records what is waiting; returns whether anything was.
    /// - Throws: ``StoreError`` from the database.
    static func record(into store: PostgresEventStore) async throws -> Bool {
        var recorded = false
        for _ in 0..<Self.eventsPerCall {
            let rows = try await store.pool.withConnection { connection in
                try await connection.query(
                    """
                    SELECT queued, event_id::text, digest, reason FROM authlog.refused_events
                    ORDER BY queued LIMIT \(Self.rowsPerEvent)
                    """
                )
            }
            guard !rows.rows.isEmpty else { return recorded }
            var queued: [Int64] = []
            var ids: [String] = []
            var digests: [String] = []
            var reasons: Set<String> = []
            for row in rows.rows {
                queued.append(try row.decode(Int64.self, at: 0))
                ids.append(try row.decode(String.self, at: 1))
                digests.append(Hex.encode(try row.decode(ByteaValue.self, at: 2).bytes))
                reasons.insert(try row.decode(String.self, at: 3))
            }
            let event = try EventEnvelope(
                AuditEventsRefused(count: ids.count, eventIDs: ids, digests: digests),
                eventID: Self.eventID(queued: queued),
                stream: StreamName(category: "audit", id: "events"),
                reason: ["duplicate", "mac_mismatch", "mac_missing"].first(where: reasons.contains) ?? "mac_missing"
            )
            try await store.append(event)
            _ = try await store.pool.withConnection { connection in
                try await connection.query(
                    "DELETE FROM authlog.refused_events WHERE queued = ANY(\(ArrayLiteral(queued))::bigint[])"
                )
            }
            recorded = true
        }
        return recorded
    }

    /// A UUID (version 8) from SHA-256 of the refused rows' queue numbers.
    static func eventID(queued: [Int64]) -> UUID {
        var bytes = SHA256.hash(Array("authlog.events_refused \(queued.map(String.init).joined(separator: ","))".utf8))
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            )
        )
    }
}
