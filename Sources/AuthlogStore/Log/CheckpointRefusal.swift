public import AuthlogCore
public import AuthlogTransparency

/// Why a checkpoint signer refused to sign the head: signing it would contradict a checkpoint it already
/// signed. Thrown by ``Checkpointer/signNow(requestID:)`` after the refusal is recorded as
/// `audit.checkpoint_refused`.
public struct CheckpointRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of contradiction.
    public var reason: AuditCheckpointRefused.Reason
    /// The head the signer was asked to sign.
    public var treeSize: Int64
    /// The head's root.
    public var root: [UInt8]
    /// The last checkpoint this signer signed (size 0 when none).
    public var lastSigned: Checkpoint
    /// What was found, in one sentence.
    public var detail: String

    public var description: String { "checkpoint refused (\(self.reason.rawValue)): \(self.detail)" }
}
