/// What the log holds about one sealed event beyond its export line: the facts the OCSF record integrity profile
/// carries (`attestation_list`; ocsf-schema PR #1661, merged for the version after 1.8.0) and the proof a SIEM
/// checks offline.
public struct OCSFRecordEvidence: Sendable, Equatable {
    /// The event at the position before: the link of the profile's `prev_event`.
    public struct Previous: Sendable, Equatable {
        /// Its event id (its OCSF `metadata.uid`).
        public var eventID: String
        /// Its OCSF `type_uid`, when its row is still stored (retention may have dropped it).
        public var typeUID: Int?
        /// Its digest in lowercase hex, when its row is still stored.
        public var digest: String?

        /// Creates a link.
        public init(eventID: String, typeUID: Int?, digest: String?) {
            self.eventID = eventID
            self.typeUID = typeUID
            self.digest = digest
        }
    }

    /// A signed checkpoint that covers the event, and the event's inclusion proof in its tree.
    public struct Checkpoint: Sendable, Equatable {
        /// The tree size the checkpoint signs.
        public var size: Int64
        /// The note as `/v1/log/checkpoint` serves it: the log's signature line, then the witnesses' cosignature
        /// lines stored for it.
        public var note: String
        /// The audit path of the event's leaf in the tree of ``size`` leaves, bottom up (RFC 9162 §2.1.3).
        public var proof: [[UInt8]]

        /// Creates a checkpoint's evidence.
        public init(size: Int64, note: String, proof: [[UInt8]]) {
            self.size = size
            self.note = note
            self.proof = proof
        }
    }

    /// The log's origin (the first line of its checkpoints), the profile's `chain_uid`; nil before the first
    /// checkpoint.
    public var origin: String?
    /// The event before this one; nil at position 1.
    public var previous: Previous?
    /// The checkpoint the event is proved in; nil while no checkpoint chosen for its page covers it (the line
    /// then says where to fetch one).
    public var checkpoint: Checkpoint?

    /// Creates the evidence of one event.
    public init(origin: String?, previous: Previous?, checkpoint: Checkpoint?) {
        self.origin = origin
        self.previous = previous
        self.checkpoint = checkpoint
    }
}
