import AuthlogCore
import AuthlogCrypto
public import AuthlogPostgres
public import AuthlogTransparency
public import Foundation

/// Makes the receipt of one event from the database: its canonical bytes, its inclusion proof in the latest
/// signed checkpoint (the newest witnessed one when witnesses are configured), and that checkpoint's note
/// (``LogReceipt``), after checking that the bytes still give the event's leaf.
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

    /// A receipt and whether its checkpoint is witnessed.
    public struct Made: Sendable, Equatable {
        /// The receipt.
        public var receipt: LogReceipt
        /// Whether the stored cosignatures of the receipt's checkpoint meet the witness policy's quorum (always
        /// false without witnesses): a receipt that is not verifies with the log's key, but not under the policy.
        public var isWitnessed: Bool
    }

    /// The stored event does not match what the log holds at its position: its canonical bytes no longer hash to
    /// its digest, or its digest to its leaf. A receipt would fail offline, so none is made.
    public struct AlteredEvent: Error, Sendable, CustomStringConvertible {
        /// The event's position.
        public var position: Int64
        /// What differs.
        public var detail: String

        public var description: String {
            "the event at position \(self.position) \(self.detail), so its receipt would not verify; "
                + "the log is broken there (run authlog verify)"
        }
    }

    /// The receipt of `eventID` (``make(of:witnessPolicy:on:)``).
    /// - Throws: as ``make(of:witnessPolicy:on:)``.
    public static func receipt(
        of eventID: UUID,
        witnessPolicy: WitnessPolicy? = nil,
        on connection: Connection
    ) async throws
        -> LogReceipt
    {
        try await self.make(of: eventID, witnessPolicy: witnessPolicy, on: connection).receipt
    }

    /// The receipt of `eventID` against the newest checkpoint covering it whose stored cosignatures meet
    /// `witnessPolicy`'s quorum (among the 100 newest checkpoints), else the latest checkpoint; its note carries
    /// the stored cosignatures. The event's canonical bytes are checked against its digest and leaf first.
    /// - Throws: ``StoreError`` `.outOfRange` when the event is unknown, `.conflict` when it is not sealed or no
    ///   signed checkpoint covers it yet, `.dropped` when retention dropped it; ``AlteredEvent`` when the stored
    ///   event no longer matches its leaf.
    public static func make(
        of eventID: UUID,
        witnessPolicy: WitnessPolicy? = nil,
        on connection: Connection
    ) async throws
        -> Made
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
        var isWitnessed = false
        if let witnessPolicy, witnessPolicy.minimumCosigners > 0,
            let witnessed = try await self.newestWitnessed(from: position, under: witnessPolicy, on: connection)
        {
            checkpoint = witnessed
            isWitnessed = true
        }
        let proof = try await LogProofs.inclusion(position: position, treeSize: checkpoint.size, on: connection)
        guard let event = try await EventReader().events(after: position - 1, limit: 1, on: connection).first,
            event.position == position
        else {
            throw StoreError(.schema, "the sealed event at \(position) cannot be read")
        }
        let bytes = CanonicalEventEncoding.bytes(envelope: event.envelope, recordedAt: event.recordedAt)
        if SHA256.hash(bytes) != event.digest {
            throw AlteredEvent(position: position, detail: "no longer matches its digest")
        }
        if MerkleTree.leafHash(position: position, digest: event.digest) != proof.leafHash {
            throw AlteredEvent(position: position, detail: "has a digest that is not the one its leaf hashes")
        }
        let receipt = LogReceipt(
            position: position,
            eventBytes: bytes,
            proof: proof.hashes,
            note: CosignedCheckpoint.appending(
                try await CheckpointCosignatures.lines(treeSize: checkpoint.size, on: connection),
                to: checkpoint.note
            )
        )
        return Made(receipt: receipt, isWitnessed: isWitnessed)
    }

    /// The newest of the 100 newest checkpoints covering `position` whose stored cosignatures meet `policy`'s
    /// quorum. Only those with at least ``WitnessPolicy/minimumCosigners`` stored lines are read and checked.
    static func newestWitnessed(
        from position: Int64,
        under policy: WitnessPolicy,
        on connection: Connection
    ) async throws -> Checkpointer.Signed? {
        let candidates = try await connection.query(
            """
            SELECT c.tree_size
            FROM (SELECT tree_size FROM authlog.checkpoints WHERE tree_size >= \(position)
                  ORDER BY tree_size DESC LIMIT 100) c
            WHERE (SELECT count(*) FROM authlog.checkpoint_cosignatures s WHERE s.tree_size = c.tree_size)
                  >= \(policy.minimumCosigners)
            ORDER BY c.tree_size DESC
            """
        )
        for row in candidates.rows {
            let size = try row.decode(Int64.self, at: 0)
            guard let stored = try await Checkpointer.stored(size: size, on: connection) else { continue }
            let lines = try await CheckpointCosignatures.lines(treeSize: size, on: connection)
            if policy.check(note: CosignedCheckpoint.appending(lines, to: stored.note))?.quorumMet == true {
                return stored
            }
        }
        return nil
    }
}
