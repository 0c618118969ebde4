public import Foundation

/// Evidence that authlog's log showed this device two views that cannot both be true: the checkpoint the device
/// kept and the one it was shown, both signed notes verbatim. Anyone holding the log's verifier key can check
/// both signatures (``evidence``); for ``Reason/fork`` the two notes alone prove the split.
public struct SplitViewAlarm: Sendable, Hashable, Codable {
    /// What contradicts what.
    public enum Reason: String, Sendable, Hashable, Codable, CustomStringConvertible {
        /// Two checkpoints of the same size with different roots.
        case fork
        /// A bigger checkpoint whose consistency proof from the kept one does not verify.
        case inconsistent
        /// A smaller checkpoint that is not a prefix of the kept one: the proof route's proof does not verify, or
        /// the log says it no longer has the kept size.
        case rollback
        /// A bigger checkpoint shown without the consistency proof the log had to give.
        case unproven

        /// The reason's name.
        public var description: String { self.rawValue }
    }

    /// What contradicts what.
    public var reason: Reason
    /// The checkpoint the device kept, verbatim (with its cosignatures).
    public var keptNote: String
    /// The checkpoint the device was shown, verbatim.
    public var shownNote: String
    /// The kept checkpoint's tree size.
    public var keptSize: Int64
    /// The shown checkpoint's tree size.
    public var shownSize: Int64
    /// The consistency proof the log gave between the two, when it gave one (32-byte hashes, in order).
    public var consistencyProof: [[UInt8]]?
    /// One sentence on what failed.
    public var detail: String
    /// When the device found it (whole seconds).
    public var detectedAt: Date

    /// Creates an alarm.
    public init(
        reason: Reason,
        keptNote: String,
        shownNote: String,
        keptSize: Int64,
        shownSize: Int64,
        consistencyProof: [[UInt8]]? = nil,
        detail: String,
        detectedAt: Date
    ) {
        self.reason = reason
        self.keptNote = keptNote
        self.shownNote = shownNote
        self.keptSize = keptSize
        self.shownSize = shownSize
        self.consistencyProof = consistencyProof
        self.detail = detail
        self.detectedAt = detectedAt
    }

    enum CodingKeys: String, CodingKey {
        case reason
        case keptNote = "kept_note"
        case shownNote = "shown_note"
        case keptSize = "kept_size"
        case shownSize = "shown_size"
        case consistencyProof = "consistency_proof"
        case detail
        case detectedAt = "detected_at"
    }

    /// Reads an alarm as ``encode(to:)`` wrote it (the proof's hashes in base64, the time in RFC 3339).
    /// - Throws: `DecodingError` for a member missing or malformed.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.reason = try container.decode(Reason.self, forKey: .reason)
        self.keptNote = try container.decode(String.self, forKey: .keptNote)
        self.shownNote = try container.decode(String.self, forKey: .shownNote)
        self.keptSize = try container.decode(Int64.self, forKey: .keptSize)
        self.shownSize = try container.decode(Int64.self, forKey: .shownSize)
        self.detail = try container.decode(String.self, forKey: .detail)
        self.detectedAt = try WireTime.decode(container, .detectedAt)
        let proof = try container.decodeIfPresent([String].self, forKey: .consistencyProof)
        self.consistencyProof = try proof.map { lines in
            try lines.map { line in
                guard let hash = Data(base64Encoded: line), hash.count == 32 else {
                    throw DecodingError.dataCorruptedError(
                        forKey: .consistencyProof,
                        in: container,
                        debugDescription: "a proof hash is not 32 bytes of base64"
                    )
                }
                return Array(hash)
            }
        }
    }

    /// Writes the alarm as JSON members `reason`, `kept_note`, `shown_note`, `kept_size`, `shown_size`,
    /// `consistency_proof` (base64 hashes, when there is one), `detail` and `detected_at` (RFC 3339, UTC, whole
    /// seconds).
    /// - Throws: the encoder's errors.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.reason, forKey: .reason)
        try container.encode(self.keptNote, forKey: .keptNote)
        try container.encode(self.shownNote, forKey: .shownNote)
        try container.encode(self.keptSize, forKey: .keptSize)
        try container.encode(self.shownSize, forKey: .shownSize)
        try container.encodeIfPresent(
            self.consistencyProof.map { $0.map { Data($0).base64EncodedString() } },
            forKey: .consistencyProof
        )
        try container.encode(self.detail, forKey: .detail)
        try container.encode(Self.time(self.detectedAt), forKey: .detectedAt)
    }
}
