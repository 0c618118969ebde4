public import AuthlogCore

/// ``DPoPProofLedger`` in memory, with the semantics of AuthlogStore's `DPoPProofStore`.
public struct InMemoryDPoPProofLedger: DPoPProofLedger {
    let storage: InMemoryStorage

    /// Records the proof once; false when it was recorded before.
    /// - Throws: ``InMemoryConstraintViolation`` when the hash is not 32 bytes.
    public func recordOnce(proofHash: [UInt8], expiresAt: Timestamp) async throws -> Bool {
        guard proofHash.count == 32 else {
            throw InMemoryConstraintViolation("dpop_proofs: proof_hash must be 32 bytes")
        }
        return self.storage.withState { state in
            guard state.tables.dpopProofs[proofHash] == nil else { return false }
            state.tables.dpopProofs[proofHash] = expiresAt
            return true
        }
    }

    /// Forgets the proofs that expired before `cutoff`.
    public func purge(before cutoff: Timestamp) async throws -> Int {
        self.storage.withState { state in
            let expired = state.tables.dpopProofs.filter { $0.value < cutoff }.map(\.key)
            for hash in expired { state.tables.dpopProofs[hash] = nil }
            return expired.count
        }
    }
}
