/// A DPoP proof's record, taken by the command that acts on it (RFC 9449 §11.1: a proof is accepted once):
/// the SHA-256 of its key's thumbprint and `jti`, kept until `expiresAt` in the same table as the proofs the
/// ledger records on its own (`authlog.dpop_proofs`). The command's events are stored only if the proof was
/// not recorded before, in the same transaction: a replay fails the command alone with ``DPoPProofReplayed``,
/// and a command that fails for another reason (a stream that moved) records no proof.
public struct DPoPProofClaim: Sendable, Equatable {
    /// SHA-256 of the key's thumbprint and the proof's `jti` (32 bytes).
    public var proofHash: [UInt8]
    /// When the row may be purged: the proof can no longer verify anywhere.
    public var expiresAt: Timestamp

    /// Creates a claim.
    public init(proofHash: [UInt8], expiresAt: Timestamp) {
        self.proofHash = proofHash
        self.expiresAt = expiresAt
    }
}

/// A command's DPoP proof was recorded before (by this command's replay, in this or another process), so
/// nothing of the command was stored.
public struct DPoPProofReplayed: Error, Sendable, CustomStringConvertible {
    /// Creates the error.
    public init() {}

    public var description: String { "the command's DPoP proof was recorded before" }
}
