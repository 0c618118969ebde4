/// The DPoP proofs (RFC 9449) already accepted, shared by every `serve` process of one database, so that a
/// proof's `jti` is accepted once within its lifetime. Only SHA-256 hashes are kept, each until the proof could
/// no longer verify anyway (its `iat` past the accepted window), so the rows are bounded by the accepted proofs
/// of one window.
public protocol DPoPProofLedger: Sendable {
    /// Records the proof with SHA-256 `proofHash`, which verifies until `expiresAt`; false when it was recorded
    /// before (a replay), atomically across processes.
    func recordOnce(proofHash: [UInt8], expiresAt: Timestamp) async throws -> Bool
    /// Forgets the proofs that expired before `cutoff`; returns how many.
    func purge(before cutoff: Timestamp) async throws -> Int
}
