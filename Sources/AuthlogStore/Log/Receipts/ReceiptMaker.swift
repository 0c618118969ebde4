import AuthlogCore
public import AuthlogPostgres
public import AuthlogTransparency
public import Foundation

/// Makes the receipt of one event from the database: its canonical bytes, its inclusion proof in the latest
/// signed checkpoint, and that checkpoint's note (``LogReceipt``).
public enum ReceiptMaker {
    /// Whose event it is: its user, if it names one.
    /// - Throws: ``StoreError`` `.outOfRange` when no event has that id.
    public static func owner(of eventID: UUID, on connection: Connection) async throws -> UUID? {
        let rows = try await connection.query(
            "SELECT user_id::text FROM authlog.event_records WHERE event_id = \(eventID) LIMIT 1"
        )
        guard let row = rows.first else { throw StoreError(.outOfRange, "no event has the id \(eventID.lowercased)") }
        return try row.decode(String?.self, at: 0).flatMap(UUID.init(uuidString:))
    }

    /// The receipt of `eventID` against the newest checkpoint covering it that at least `witnessQuorum`
    /// witnesses cosigned (among the 100 newest checkpoints), else the latest checkpoint; its note carries the
    /// stored cosignatures.
    /// - Throws: ``StoreError`` `.outOfRange` when the event is unknown, `.conflict` when it is not sealed or no
    ///   signed checkpoint covers it yet, `.dropped` when retention dropped it.
    public static func receipt(
        of eventID: UUID,
        witnessQuorum: Int = 0,
        on connection: Connection
    ) async throws
        -> LogReceipt
    {
        let rows = try await connection.query("SELECT position FROM authlog.log_leaves WHERE event_id = \(eventID)")
        guard let position = try rows.first?.decode(Int64.self, at: 0) else {
            _ = try await self.owner(of: eventID, on: connection)
            throw StoreError(.conflict, "the event is not sealed yet")
        }
        guard let latest = try await Checkpointer.stored(size: nil, on: connection), latest.size >= position else {
            throw StoreError(.conflict, "no signed checkpoint covers position \(position) yet")
        }
        var checkpoint = latest
        if witnessQuorum > 0 {
            let witnessed = try await connection.query(
                """
                SELECT c.tree_size
                FROM (SELECT tree_size FROM authlog.checkpoints WHERE tree_size >= \(position)
                      ORDER BY tree_size DESC LIMIT 100) c
                WHERE (SELECT count(*) FROM authlog.checkpoint_cosignatures s WHERE s.tree_size = c.tree_size)
                      >= \(witnessQuorum)
                ORDER BY c.tree_size DESC LIMIT 1
                """
            )
            if let size = try witnessed.first?.decode(Int64.self, at: 0),
                let stored = try await Checkpointer.stored(size: size, on: connection)
            {
                checkpoint = stored
            }
        }
        let proof = try await LogProofs.inclusion(position: position, treeSize: checkpoint.size, on: connection)
        guard let event = try await EventReader().events(after: position - 1, limit: 1, on: connection).first,
            event.position == position
        else {
            throw StoreError(.schema, "the sealed event at \(position) cannot be read")
        }
        return LogReceipt(
            position: position,
            eventBytes: CanonicalEventEncoding.bytes(envelope: event.envelope, recordedAt: event.recordedAt),
            proof: proof.hashes,
            note: CosignedCheckpoint.appending(
                try await CheckpointCosignatures.lines(treeSize: checkpoint.size, on: connection),
                to: checkpoint.note
            )
        )
    }
}
