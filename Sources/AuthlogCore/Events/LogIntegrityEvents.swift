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

/// A witness refused the log's checkpoint as contradicting one it holds (`audit.witness_alarm`): a C2SP
/// tlog-witness `409` naming the very size just sent or a larger one than the log's, or a `422`. The witness holds
/// a checkpoint signed with this log's key that this log contradicts: a split view, a rollback of this log, or a
/// stolen key. Recorded once per alarm (one event while it stands, across restarts and processes: appended on
/// the stream `audit-witness.<name>` expecting its version), until an operator clears it
/// (`audit.witness_alarm_cleared`). The envelope's `reason` is one of ``Reason``'s raw values.
public struct AuditWitnessAlarm: EventPayload {
    public static let eventType = EventType.auditWitnessAlarm

    /// What the witness's answer shows.
    public enum Reason: String, Sendable, Codable, CaseIterable {
        /// 409 naming the size that was sent (tlog-witness v1.0.0's answer to another root at its own size).
        case fork
        /// 409 naming a size larger than the log's checkpoint: the log went back, or forked, behind the witness.
        case rollback
        /// 422: the witness found the checkpoint inconsistent with what it cosigned (later tlog-witness).
        case inconsistent
    }

    /// The witness's name (its cosignature key name).
    public var witness: String
    /// The size of the checkpoint that was sent.
    public var treeSize: Int64
    /// Base64 of that checkpoint's root.
    public var rootHash: String
    /// The `old` size the request claimed the witness holds.
    public var oldSize: Int64
    /// The HTTP status the witness answered.
    public var status: Int
    /// The witness's answer body, at most 512 bytes, as text.
    public var answer: String
    /// What the answer means, in one sentence.
    public var detail: String
    /// Where the evidence was kept outside the database (the request sent and the answer), when it was.
    public var evidence: String?

    /// Creates the payload.
    public init(
        witness: String,
        treeSize: Int64,
        rootHash: String,
        oldSize: Int64,
        status: Int,
        answer: String,
        detail: String,
        evidence: String?
    ) {
        self.witness = witness
        self.treeSize = treeSize
        self.rootHash = rootHash
        self.oldSize = oldSize
        self.status = status
        self.answer = answer
        self.detail = detail
        self.evidence = evidence
    }
}

/// An operator cleared a witness's alarm (`audit.witness_alarm_cleared`, `authlog witness-alarm clear`): the log
/// submits to that witness again, and a new refusal is a new alarm. Appended on the alarm's stream, expecting its
/// version, so it clears exactly the alarm the operator saw.
public struct AuditWitnessAlarmCleared: EventPayload {
    public static let eventType = EventType.auditWitnessAlarmCleared

    /// The witness's name.
    public var witness: String
    /// Who cleared it (`os:USER@HOST`).
    public var actor: String
    /// The `audit.witness_alarm` event it clears.
    public var alarmEventID: String
    /// Why, in the operator's words.
    public var note: String

    /// Stored as `witness`, `actor`, `alarm_event_id` and `note`.
    enum CodingKeys: String, CodingKey {
        case witness
        case actor
        case alarmEventID = "alarmEventId"
        case note
    }

    /// Creates the payload.
    public init(witness: String, actor: String, alarmEventID: String, note: String) {
        self.witness = witness
        self.actor = actor
        self.alarmEventID = alarmEventID
        self.note = note
    }
}
