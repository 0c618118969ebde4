import AuthlogCore
import AuthlogCrypto
public import AuthlogPostgres
public import AuthlogTransparency
public import Foundation

/// Makes the receipts of several of one user's events against one checkpoint, with one multi-leaf proof
/// (``MultiLeafProof``) and, when asked, the consistency proof from a tree size the device keeps: what
/// `GET /v1/log/receipts` answers (``ReceiptBatch`` verifies it offline). The proof's nodes, the events' leaves and
/// the consistency proof's nodes are read in one query.
public enum ReceiptBatchMaker {
    /// Whether the batch's checkpoint is witnessed.
    public enum Witnessing: String, Sendable {
        /// The witness policy's quorum cosigned it.
        case yes
        /// Witnesses are configured and their quorum has not cosigned a checkpoint that covers the receipts yet.
        case pending
        /// No witness is configured.
        case none
    }

    /// One event's receipt in the batch.
    public struct Receipt: Sendable, Equatable {
        /// The event.
        public var eventID: UUID
        /// Its position (its leaf index + 1).
        public var position: Int64
        /// Its canonical bytes.
        public var bytes: [UInt8]
    }

    /// A batch of receipts.
    public struct Made: Sendable, Equatable {
        /// The checkpoint, its note carrying the stored cosignatures.
        public var checkpoint: Checkpointer.Signed
        /// Whether the checkpoint is witnessed.
        public var witnessed: Witnessing
        /// The receipts, by position.
        public var receipts: [Receipt]
        /// The multi-leaf proof of the receipts' leaves in the checkpoint's tree.
        public var proof: [[UInt8]]
        /// The consistency proof from the tree size asked for to the checkpoint's; nil unless one was asked for
        /// below the checkpoint's size.
        public var consistency: [[UInt8]]?
        /// The events of the user not covered by a signed checkpoint yet, in the order asked.
        public var pending: [UUID]
        /// The ids that name no event of the user (another's, none, or one retention dropped), in the order asked.
        public var notFound: [UUID]
    }

    /// The receipts of the events `eventIDs` (at most ``MultiLeafProof/maximumLeaves``) of the user `userID`,
    /// against the newest checkpoint covering them all that `witnessPolicy`'s quorum cosigned (among the 100
    /// newest), else the latest one; with the consistency proof from the tree of `from` leaves when `from` is
    /// below its size. Each event's canonical bytes are checked against its digest and leaf first.
    /// - Throws: ``StoreError`` `.conflict` when no checkpoint has been signed yet, `.dropped` when `from` lies in
    ///   positions retention dropped; ``ReceiptMaker/AlteredEvent`` when a stored event no longer matches its leaf.
    public static func make(
        eventIDs: [UUID],
        userID: UUID,
        from: Int64?,
        witnessPolicy: WitnessPolicy?,
        on connection: Connection
    ) async throws -> Made {
        let found = try await self.sealedPositions(of: eventIDs, userID: userID, on: connection)
        guard let latest = try await Checkpointer.stored(size: nil, on: connection) else {
            throw StoreError(.conflict, "no checkpoint has been signed yet")
        }
        let anchor = try await LogAnchor.latest(on: connection)
        let dropped = anchor?.size ?? 0
        let sorted = Sorted(eventIDs, found: found, dropped: dropped, checkpointed: latest.size)
        let (chosen, witnessed) = try await self.checkpoint(
            covering: sorted.covered.last?.position ?? 1,
            latest: latest,
            policy: witnessPolicy,
            on: connection
        )
        var checkpoint = chosen
        if let from, from < dropped, from < checkpoint.size {
            throw StoreError(
                .dropped,
                "tree sizes below \(dropped) lie in positions dropped by retention; prove from \(dropped) or later"
            )
        }
        let proof = MultiLeafProof.ranges(indices: sorted.covered.map { $0.position - 1 }, size: checkpoint.size)
        let leaves = sorted.covered.map { MerkleProof.Range(start: $0.position - 1, end: $0.position) }
        let consistency = from.flatMap {
            $0 < checkpoint.size ? MerkleProof.consistency(oldSize: $0, newSize: checkpoint.size) : nil
        }
        // One read of log_leaves for the proof, the leaves the events are checked against and the consistency.
        let nodes = try await LogProofs.nodes(for: proof + leaves + (consistency ?? []), anchor: anchor, on: connection)
        let receipts = try await self.receipts(sorted.covered, leaves: nodes, on: connection)
        checkpoint.note = CosignedCheckpoint.appending(
            try await CheckpointCosignatures.lines(treeSize: checkpoint.size, on: connection),
            to: checkpoint.note
        )
        return Made(
            checkpoint: checkpoint,
            witnessed: witnessed,
            receipts: receipts,
            proof: try proof.map { try LogProofs.hash(of: $0, nodes) },
            consistency: try consistency?.map { try LogProofs.hash(of: $0, nodes) },
            pending: sorted.pending,
            notFound: sorted.notFound
        )
    }

    /// The ids asked for, sorted into what is answered.
    private struct Sorted {
        /// The events a checkpoint covers, by position.
        var covered: [(id: UUID, position: Int64)] = []
        /// The user's events no checkpoint covers yet, in the order asked.
        var pending: [UUID] = []
        /// The rest, in the order asked.
        var notFound: [UUID] = []

        /// Sorts `eventIDs` by what `found` says of them (the user's events, with their positions), the last
        /// position retention `dropped` and the size of the latest checkpoint.
        init(_ eventIDs: [UUID], found: [UUID: Int64?], dropped: Int64, checkpointed: Int64) {
            for id in eventIDs {
                switch found[id] {
                case nil: self.notFound.append(id)
                case .some(nil): self.pending.append(id)
                case .some(let position?) where position <= dropped: self.notFound.append(id)
                case .some(let position?) where position > checkpointed: self.pending.append(id)
                case .some(let position?): self.covered.append((id, position))
                }
            }
            self.covered.sort { $0.position < $1.position }
        }
    }

    /// The checkpoint to answer against: with a policy that needs cosignatures, the newest (of the 100 newest)
    /// covering `position` whose stored cosignatures meet its quorum, else `latest` (pending); without, `latest`.
    private static func checkpoint(
        covering position: Int64,
        latest: Checkpointer.Signed,
        policy: WitnessPolicy?,
        on connection: Connection
    ) async throws -> (Checkpointer.Signed, Witnessing) {
        guard let policy, policy.minimumCosigners > 0 else { return (latest, .none) }
        guard let cosigned = try await ReceiptMaker.newestWitnessed(from: position, under: policy, on: connection)
        else { return (latest, .pending) }
        return (cosigned, .yes)
    }

    /// The ids among `eventIDs` that are events of `userID`, each with its position (nil when not sealed yet).
    private static func sealedPositions(
        of eventIDs: [UUID],
        userID: UUID,
        on connection: Connection
    ) async throws -> [UUID: Int64?] {
        let rows = try await connection.query(
            """
            SELECT r.event_id, l.position FROM authlog.event_records r
            LEFT JOIN authlog.log_leaves l ON l.event_id = r.event_id AND l.log_month = r.log_month
            WHERE r.event_id = ANY(\(ArrayLiteral(eventIDs))::uuid[]) AND r.user_id = \(userID)
            """
        )
        var found: [UUID: Int64?] = [:]
        for row in rows.rows { found[try row.decode(UUID.self, at: 0)] = try row.decode(Int64?.self, at: 1) }
        return found
    }

    /// The receipts of the `covered` events (by position), their canonical bytes checked against their digests
    /// and their leaves (among `leaves`).
    private static func receipts(
        _ covered: [(id: UUID, position: Int64)],
        leaves: [MerkleNodeID: [UInt8]],
        on connection: Connection
    ) async throws -> [Receipt] {
        let events = try await EventReader().events(at: covered.map(\.position), on: connection)
        var byPosition: [Int64: RecordedEvent] = [:]
        for event in events { byPosition[event.position] = event }
        return try covered.map { entry in
            guard let event = byPosition[entry.position], event.envelope.eventID == entry.id else {
                throw StoreError(.schema, "the sealed event at \(entry.position) cannot be read")
            }
            let bytes = CanonicalEventEncoding.bytes(envelope: event.envelope, recordedAt: event.recordedAt)
            if SHA256.hash(bytes) != event.digest {
                throw ReceiptMaker.AlteredEvent(position: entry.position, detail: "no longer matches its digest")
            }
            let leaf = leaves[MerkleNodeID(level: 0, index: entry.position - 1)]
            if MerkleTree.leafHash(position: entry.position, digest: event.digest) != leaf {
                throw ReceiptMaker.AlteredEvent(
                    position: entry.position,
                    detail: "has a digest that is not the one its leaf hashes"
                )
            }
            return Receipt(eventID: entry.id, position: entry.position, bytes: bytes)
        }
    }
}
