/// Several events' receipts against one checkpoint and one multi-leaf proof (``MultiLeafProof``): what
/// `GET /v1/log/receipts` answers, checked offline with the log's key and, when given, the witness policy.
public struct ReceiptBatch: Sendable, Equatable {
    /// One event of the batch.
    public struct Entry: Sendable, Equatable {
        /// The event's id as the server named it (lowercased by the parser of the wire).
        public var eventID: String
        /// The event's position (its leaf index + 1).
        public var position: Int64
        /// The event's canonical bytes.
        public var eventBytes: [UInt8]

        /// An entry for the event `eventID` at `position` with canonical bytes `eventBytes`.
        public init(eventID: String, position: Int64, eventBytes: [UInt8]) {
            self.eventID = eventID
            self.position = position
            self.eventBytes = eventBytes
        }
    }

    /// The checkpoint note, verbatim (with its cosignatures).
    public var note: String
    /// The events, sorted by position; may be empty.
    public var entries: [Entry]
    /// The proof's hashes, in ``MultiLeafProof`` order for the entries' leaf indices.
    public var proof: [[UInt8]]

    /// A batch of `entries` proven by `proof` against the checkpoint `note`.
    public init(note: String, entries: [Entry], proof: [[UInt8]]) {
        self.note = note
        self.entries = entries
        self.proof = proof
    }

    /// What a batch proves once verified.
    public struct Verified: Sendable, Equatable {
        /// The checkpoint the events are proven in.
        public var checkpoint: Checkpoint
        /// The events' fields, in the entries' order.
        public var events: [CanonicalEvent]
        /// Whether the cosignatures meet the policy's quorum; true when no policy was given.
        public var quorumMet: Bool
        /// The names of the witnesses whose cosignatures verified, in the policy's order.
        public var cosigned: [String]
    }

    /// Why a batch does not prove its events.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// The batch is not of the shape: positions unsorted or repeated, more than
        /// ``MultiLeafProof/maximumLeaves`` entries, a position outside the checkpoint's tree, a proof hash not
        /// 32 bytes, a proof of the wrong length, or a note that is not a checkpoint.
        case malformed(String)
        /// The checkpoint is not signed by the log's key.
        case checkpoint(NoteVerifier.Failure)
        /// The checkpoint's origin is not the name of the log key that signed it.
        case wrongOrigin(checkpoint: String, key: String)
        /// The log key (its verifier key) is not one of the policy's logs; nil when the policy lists no log.
        case logNotInPolicy(String?)
        /// An entry's bytes are not an event's canonical bytes.
        case event(eventID: String, CanonicalEvent.Failure)
        /// An entry's bytes name another event than the entry.
        case eventIDMismatch(named: String, inBytes: String)
        /// The proof does not lead from the events to the checkpoint's root.
        case notIncluded

        /// The reason as a sentence.
        public var description: String {
            switch self {
            case .malformed(let why): "not a receipt batch: \(why)"
            case .checkpoint(let failure): "the checkpoint: \(failure)"
            case .wrongOrigin(let origin, let key):
                "the checkpoint's origin \(origin) is not the name of the log key \(key) that signed it"
            case .logNotInPolicy(let key?): "the log key \(key) is not one of the policy's logs"
            case .logNotInPolicy(nil): "the policy lists no log to check the checkpoint with"
            case .event(let eventID, let failure): "the event \(eventID): \(failure)"
            case .eventIDMismatch(let named, let inBytes):
                "the receipt named \(named) holds the bytes of the event \(inBytes)"
            case .notIncluded: "the proof does not lead from the events to the checkpoint's root"
            }
        }
    }

    /// Checks the note under `logKey` (its origin must be the key's name; when `policy` lists logs, the key must
    /// be one), that every entry's bytes decode and name the entry's event id, and that the multi-leaf proof
    /// leads from the leaves (`MerkleTree.leafHash(position:digest: SHA-256(bytes))`) to the checkpoint's root.
    /// Fewer cosignatures than the policy's quorum is not an error: ``Verified/quorumMet`` is false then. An
    /// empty batch checks the note alone (and an empty proof). Hashes are computed with the key's
    /// ``NoteVerifier/crypto``.
    /// - Throws: ``Failure``.
    public func verify(logKey: NoteVerifier, policy: WitnessPolicy?) throws(ReceiptBatch.Failure) -> Verified {
        try self.verify(against: Self.verifiedNote(self.note, logKey: logKey, policy: policy), crypto: logKey.crypto)
    }

    /// A note whose log signature, origin and cosignatures were checked under one log key and witness policy.
    struct VerifiedNote: Sendable, Equatable {
        /// The note, verbatim.
        var note: String
        /// Its checkpoint.
        var checkpoint: Checkpoint
        /// Whether the cosignatures meet the policy's quorum (true without a policy).
        var quorumMet: Bool
        /// The witnesses whose cosignatures verified, in the policy's order.
        var cosigned: [String]
    }

    /// Checks `note` under `logKey` (and, when `policy` lists logs, that the key is one) and `policy`.
    static func verifiedNote(
        _ note: String,
        logKey: NoteVerifier,
        policy: WitnessPolicy?
    ) throws(Failure) -> VerifiedNote {
        if let policy, !policy.logs.isEmpty,
            !policy.logs.contains(where: { $0.verifier.verifierKey == logKey.verifierKey })
        {
            throw .logNotInPolicy(logKey.verifierKey)
        }
        let checkpoint = try Self.open(note, logKey: logKey)
        guard let policy else { return VerifiedNote(note: note, checkpoint: checkpoint, quorumMet: true, cosigned: []) }
        guard let result = policy.check(note: note) else { throw .malformed("the note is not a signed note") }
        return VerifiedNote(
            note: note,
            checkpoint: checkpoint,
            quorumMet: result.quorumMet,
            cosigned: result.cosigned.map(\.name)
        )
    }

    /// Checks the entries and the proof against `verified`, the batch's own note already checked.
    func verify(against verified: VerifiedNote, crypto: any TransparencyCrypto) throws(Failure) -> Verified {
        guard verified.note == self.note else { throw .malformed("the batch's note is not the verified one") }
        let events = try self.decodedEvents()
        try self.proveInclusion(in: verified.checkpoint, crypto: crypto)
        return Verified(
            checkpoint: verified.checkpoint,
            events: events,
            quorumMet: verified.quorumMet,
            cosigned: verified.cosigned
        )
    }

    /// The checkpoint of `note` once `logKey` opened it and its origin is the key's name.
    private static func open(_ note: String, logKey: NoteVerifier) throws(Failure) -> Checkpoint {
        let body: String
        do {
            body = try logKey.open(note)
        } catch {
            throw .checkpoint(error)
        }
        guard let checkpoint = Checkpoint(body: body) else { throw .malformed("the note is not a checkpoint") }
        // A note signature does not cover the key's name (see LogReceipt): the origin tells two logs apart.
        guard checkpoint.origin == logKey.name else {
            throw .wrongOrigin(checkpoint: checkpoint.origin, key: logKey.name)
        }
        return checkpoint
    }

    /// The entries' events, each naming its entry's id.
    private func decodedEvents() throws(Failure) -> [CanonicalEvent] {
        guard self.entries.count <= MultiLeafProof.maximumLeaves else {
            throw .malformed("more than \(MultiLeafProof.maximumLeaves) receipts")
        }
        var events: [CanonicalEvent] = []
        for entry in self.entries {
            let event: CanonicalEvent
            do {
                event = try CanonicalEvent(bytes: entry.eventBytes)
            } catch {
                throw .event(eventID: entry.eventID, error)
            }
            guard event.eventID == entry.eventID.lowercased() else {
                throw .eventIDMismatch(named: entry.eventID, inBytes: event.eventID)
            }
            events.append(event)
        }
        return events
    }

    /// Checks that the proof leads from the entries' leaves to `checkpoint`'s root.
    private func proveInclusion(in checkpoint: Checkpoint, crypto: any TransparencyCrypto) throws(Failure) {
        guard !self.entries.isEmpty else {
            guard self.proof.isEmpty else { throw .malformed("a proof with no receipt") }
            return
        }
        let positions = self.entries.map(\.position)
        guard zip(positions, positions.dropFirst()).allSatisfy({ $0 < $1 }) else {
            throw .malformed("the receipts are not sorted by position, or one is repeated")
        }
        guard let first = positions.first, first >= 1, let last = positions.last, last <= checkpoint.size else {
            throw .malformed("a receipt's position is outside the checkpoint's tree of \(checkpoint.size)")
        }
        guard self.proof.count <= MultiLeafProof.maximumHashes, self.proof.allSatisfy({ $0.count == 32 }) else {
            throw .malformed("a proof hash is not 32 bytes, or the proof has more than \(MultiLeafProof.maximumHashes)")
        }
        let expected = MultiLeafProof.ranges(indices: positions.map { $0 - 1 }, size: checkpoint.size).count
        guard self.proof.count == expected else {
            throw .malformed("the proof has \(self.proof.count) hashes where \(expected) are needed")
        }
        let leaves = self.entries.map { entry in
            (
                index: entry.position - 1,
                hash: MerkleTree.leafHash(
                    position: entry.position,
                    digest: crypto.sha256(entry.eventBytes),
                    crypto: crypto
                )
            )
        }
        guard
            let root = MultiLeafProof.root(leaves: leaves, size: checkpoint.size, proof: self.proof, crypto: crypto),
            root == checkpoint.root
        else { throw .notIncluded }
    }
}
