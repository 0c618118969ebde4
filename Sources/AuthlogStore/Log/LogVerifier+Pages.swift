import AuthlogCore
import AuthlogCrypto
import AuthlogPostgres
import AuthlogTransparency
import Foundation

extension LogVerifier {
    /// One sealed event as the walk reads it, with what is recomputed from its contents alone (its digest and
    /// leaf hash), so that hashing can run on another core than the walk that compares.
    struct ReplayRow: Sendable {
        var event: RecordedEvent
        /// The interior nodes stored with the leaf.
        var subtrees: [UInt8]
        var month: String
        var mac: [UInt8]?
        /// Whether the stored MAC verifies under the event key (nil without a MAC or without the key).
        var macVerifies: Bool?
        /// The digest recomputed from the event's contents and recording time.
        var digest: [UInt8]
        /// The leaf hash recomputed from the position and the recomputed digest.
        var leafHash: [UInt8]
    }

    /// Starts reading (and hashing) the page after `position` on another task, so that it runs while the walk
    /// checks the page before it: the walk compares and builds the tree while the next page's rows are decoded
    /// and hashed, each half of them on its own task.
    func prefetch(after position: Int64, on connection: Connection) -> Task<[ReplayRow], any Error> {
        Task { try await self.page(after: position, on: connection) }
    }

    /// Waits for a page read that the walk no longer needs, so nothing runs on the connection once it returns.
    static func drain(_ pending: Task<[ReplayRow], any Error>?) async {
        _ = try? await pending?.value
    }

    /// The `pageSize` sealed events after `position` (keyset pages: memory holds a page or two, whatever the
    /// log's size), each with its stored nodes, month and MAC, its recomputed digest and leaf hash, and whether
    /// its MAC verifies.
    /// - Throws: ``StoreError`` (`.decoding` for a row that cannot be read as an event).
    func page(after position: Int64, on connection: Connection) async throws -> [ReplayRow] {
        let result = try await connection.query(
            """
            SELECT \(unescaped: EventRow.sealedColumns),
                   (SELECT l.subtree_hashes FROM authlog.log_leaves l
                    WHERE l.position = events.position AND l.log_month = events.log_month),
                   events.log_month::text,
                   (SELECT r.mac FROM authlog.event_records r
                    WHERE r.event_id = events.event_id AND r.log_month = events.log_month)
            FROM authlog.events
            WHERE position > \(position) ORDER BY position LIMIT \(self.pageSize)
            """
        )
        // Decoding and hashing take most of a page's time: the two halves of the page on two cores.
        let rows = result.rows
        let middle = rows.count / 2
        async let first = self.replayRows(rows[..<middle])
        let second = Result { try self.replayRows(rows[middle...]) }
        // The first half's error first: the walk reports the earliest row that does not decode.
        return try await first + second.get()
    }

    /// `rows` decoded, each with its recomputed digest and leaf hash and its MAC checked.
    /// - Throws: ``StoreError`` `.decoding` for a row that cannot be read as an event.
    private func replayRows(_ rows: ArraySlice<QueryRow>) throws -> [ReplayRow] {
        try rows.map { row in
            let event = try EventRow.decode(row)
            let digest = EventRow.digest(of: event.envelope, recordedAt: event.recordedAt)
            let mac = try row.decode(ByteaValue?.self, at: 22)?.bytes
            return ReplayRow(
                event: event,
                subtrees: try row.decode(ByteaValue.self, at: 20).bytes,
                month: try row.decode(String.self, at: 21),
                mac: mac,
                macVerifies: mac.flatMap { mac in self.eventKey.map { $0.isValid(mac, for: event.digest) } },
                digest: digest,
                leafHash: MerkleTree.leafHash(position: event.position, digest: digest)
            )
        }
    }
}
