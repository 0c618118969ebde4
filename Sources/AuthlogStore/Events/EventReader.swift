public import AuthlogCore
public import AuthlogPostgres
import AuthlogTransparency
import Foundation

/// Reads sealed events in position order, a page at a time. Unsealed events are never returned, so a reader
/// that tails by position never skips one: positions are given in one serial step, in order.
public struct EventReader: Sendable {
    /// Creates a reader.
    public init() {}

    /// Up to `limit` sealed events with a position above `position`, in order.
    /// - Throws: ``StoreError`` from the server, or `.decoding` for a row that is not a valid event.
    public func events(after position: Int64, limit: Int, on connection: Connection) async throws -> [RecordedEvent] {
        let result = try await connection.query(
            """
            SELECT \(unescaped: EventRow.sealedColumns) FROM authlog.events
            WHERE position > \(position) ORDER BY position LIMIT \(limit)
            """
        )
        return try result.rows.map(EventRow.decode)
    }

    /// The sealed events at `positions`, in position order (a position with no event is left out).
    /// - Throws: ``StoreError`` from the server, or `.decoding` for a row that is not a valid event.
    public func events(at positions: [Int64], on connection: Connection) async throws -> [RecordedEvent] {
        guard !positions.isEmpty else { return [] }
        let result = try await connection.query(
            """
            SELECT \(unescaped: EventRow.sealedColumns) FROM authlog.events
            WHERE position = ANY(\(ArrayLiteral(positions))::bigint[]) ORDER BY position
            """
        )
        return try result.rows.map(EventRow.decode)
    }

    /// The log head: the sealed tree's size, root and frontier.
    /// - Throws: ``StoreError`` from the server.
    public func head(on connection: Connection) async throws -> LogHead {
        let result = try await connection.query("SELECT size, root, frontier FROM authlog.log_head")
        guard let row = result.first else { throw StoreError(.schema, "authlog.log_head has no row") }
        return LogHead(
            size: try row.decode(Int64.self, at: 0),
            root: try row.decode(ByteaValue.self, at: 1).bytes,
            frontier: try row.decode(ByteaValue.self, at: 2).bytes
        )
    }
}

/// The head row of the log, as stored.
public struct LogHead: Sendable, Equatable {
    /// The number of sealed events.
    public var size: Int64
    /// The Merkle tree's root hash at that size.
    public var root: [UInt8]
    /// The right edge of the tree (``MerkleFrontier``), concatenated.
    public var frontier: [UInt8]
}
