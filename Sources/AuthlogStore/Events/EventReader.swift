public import AuthlogCore
import Foundation

/// Reads stored events in position order, a page at a time.
public struct EventReader: Sendable {
    /// The columns of ``RecordedEvent``, in the order ``decode(_:)`` expects.
    static let columns = """
        position, event_id, stream, stream_version, type, occurred_at, recorded_at, outcome, reason, provider,
        user_id, session_id, client_id, ip, user_agent, request_id, data::text, schema_version, prev_hash, hash
        """

    /// Creates a reader.
    public init() {}

    /// Up to `limit` events with a position above `position`, in order.
    /// - Throws: ``StoreError`` from the server, or `.decoding` for a row that is not a valid event.
    public func events(after position: Int64, limit: Int, on connection: Connection) async throws -> [RecordedEvent] {
        let result = try await connection.query(
            """
            SELECT \(unescaped: Self.columns) FROM authlog.events
            WHERE position > \(position) ORDER BY position LIMIT \(limit)
            """
        )
        return try result.rows.map(Self.decode)
    }

    /// The chain head row: the last position and hash the sequencer recorded.
    /// - Throws: ``StoreError`` from the server.
    public func head(on connection: Connection) async throws -> (position: Int64, hash: [UInt8]) {
        let result = try await connection.query("SELECT position, hash FROM authlog.chain_head")
        guard let row = result.first else { throw StoreError(.schema, "authlog.chain_head has no row") }
        return (try row.decode(Int64.self, at: 0), try row.decode(ByteaValue.self, at: 1).bytes)
    }

    /// Decodes one row selected with ``columns``.
    static func decode(_ row: QueryRow) throws -> RecordedEvent {
        let position = try row.decode(Int64.self, at: 0)
        func fail(_ field: String) -> StoreError {
            StoreError(.decoding, "event at position \(position) has an invalid \(field)")
        }
        guard let stream = StreamName(rawValue: try row.decode(String.self, at: 2)) else { throw fail("stream") }
        guard let type = EventType(rawValue: try row.decode(String.self, at: 4)) else { throw fail("type") }
        guard let outcome = Outcome(rawValue: try row.decode(String.self, at: 7)) else { throw fail("outcome") }
        let envelope = EventEnvelope(
            eventID: try row.decode(UUID.self, at: 1),
            stream: stream,
            streamVersion: try row.decode(Int32.self, at: 3),
            type: type,
            occurredAt: try row.decode(Timestamp.self, at: 5),
            outcome: outcome,
            reason: try row.decode(String?.self, at: 8),
            provider: try row.decode(String?.self, at: 9),
            userID: try row.decode(UUID?.self, at: 10),
            sessionID: try row.decode(UUID?.self, at: 11),
            clientID: try row.decode(String?.self, at: 12),
            ip: try row.decode(IPAddress?.self, at: 13),
            userAgent: try row.decode(String?.self, at: 14),
            requestID: try row.decode(String?.self, at: 15),
            data: try row.decode(JSONValue.self, at: 16),
            schemaVersion: try row.decode(Int16.self, at: 17),
            normalizing: false
        )
        return RecordedEvent(
            position: position,
            envelope: envelope,
            recordedAt: try row.decode(Timestamp.self, at: 6),
            prevHash: try row.decode(ByteaValue.self, at: 18).bytes,
            hash: try row.decode(ByteaValue.self, at: 19).bytes
        )
    }
}
