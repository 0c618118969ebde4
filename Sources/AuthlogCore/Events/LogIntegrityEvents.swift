/// The checkpoint signer refused to sign the log's head (`audit.checkpoint_refused`): the head does not extend
/// the last checkpoint this signer signed (kept outside the database), so signing it would rewrite history.
/// The envelope's `reason` is one of ``Reason``'s raw values.
public struct AuditCheckpointRefused: EventPayload {
    public static let eventType = EventType.auditCheckpointRefused

    /// Why the head was not signed.
    public enum Reason: String, Sendable, Codable, CaseIterable {
        /// The log is smaller than the last signed checkpoint (truncated, or rolled back to a dump).
        case rollback
        /// The log has the last signed size but another root, or a note of the same size with another root
        /// exists.
        case fork
        /// The log is larger, but its tree does not contain the last signed one (a rewrite).
        case inconsistent
        /// The stored leaves or nodes do not agree with the head the signer would sign.
        case brokenStore = "broken_store"
        /// A checkpoint found in the database or the signer's state is not signed by this signer's key.
        case otherKey = "other_key"
        /// An event the head would sign does not match its digest or leaf, or lacks a valid MAC under the event
        /// key after the position from which the signer requires one (kept outside the database).
        case forged
    }

    /// The head the signer was asked to sign.
    public var treeSize: Int64
    /// Base64 of the head's root.
    public var rootHash: String
    /// The size of the last checkpoint this signer signed (0: none).
    public var lastSignedSize: Int64
    /// Base64 of that checkpoint's root.
    public var lastSignedRoot: String
    /// What was found, in one sentence.
    public var detail: String

    /// Creates the payload.
    public init(treeSize: Int64, rootHash: String, lastSignedSize: Int64, lastSignedRoot: String, detail: String) {
        self.treeSize = treeSize
        self.rootHash = rootHash
        self.lastSignedSize = lastSignedSize
        self.lastSignedRoot = lastSignedRoot
        self.detail = detail
    }
}

/// The sealer refused queued events whose message authentication code (HMAC-SHA-256 under the event key)
/// is missing or wrong (`audit.events_refused`): rows that no holder of the event key wrote. They are never
/// sealed; one event records each sealing step's refusals. The sealer also refuses a row whose event id has a
/// leaf already (a replayed copy of a genuine event). The envelope's `reason` is `duplicate` when any refused
/// row was such a copy, else `mac_mismatch` when any carried a wrong MAC, else `mac_missing`.
public struct AuditEventsRefused: EventPayload {
    public static let eventType = EventType.auditEventsRefused
    /// How many queued rows this step refused.
    public var count: Int
    /// The refused rows' event ids, at most 100.
    public var eventIDs: [String]
    /// Hex of the refused rows' digests, in the order of `eventIDs`.
    public var digests: [String]

    /// Stored as `count`, `event_ids` and `digests`.
    enum CodingKeys: String, CodingKey {
        case count
        case eventIDs = "eventIds"
        case digests
    }

    /// Creates the payload.
    public init(count: Int, eventIDs: [String], digests: [String]) {
        self.count = count
        self.eventIDs = eventIDs
        self.digests = digests
    }
}
