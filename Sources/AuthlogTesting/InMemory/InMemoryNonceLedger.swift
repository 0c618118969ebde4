public import AuthlogCore

/// ``NonceLedger`` in memory, with the semantics of AuthlogStore's `NonceStore`.
public struct InMemoryNonceLedger: NonceLedger {
    let storage: InMemoryStorage

    /// Records an issued nonce.
    /// - Throws: ``InMemoryConstraintViolation`` when the hash is not 32 bytes or was recorded before.
    public func recordIssued(hash: [UInt8], at issuedAt: Timestamp, expiresAt: Timestamp) async throws {
        try Self.requireSHA256(hash, table: "issued_nonces")
        try self.storage.withState { (state) throws(InMemoryConstraintViolation) in
            guard state.tables.issuedNonces[hash] == nil else {
                throw InMemoryConstraintViolation("issued_nonces: the nonce hash is recorded already")
            }
            state.tables.issuedNonces[hash] = expiresAt
        }
    }

    /// Consumes the nonce with SHA-256 `hash` for `provider` at `now`: an issued nonce past its expiry is
    /// expired (and not consumed), a pair consumed before is a replay, anything else is accepted once.
    /// - Throws: ``InMemoryConstraintViolation`` when the hash is not 32 bytes.
    public func consume(provider: String, hash: [UInt8], at now: Timestamp) async throws -> NonceConsumption {
        try Self.requireSHA256(hash, table: "consumed_nonces")
        return self.storage.withState { state in
            if let expiresAt = state.tables.issuedNonces[hash], expiresAt <= now { return .expired }
            let key = InMemoryStateTables.ConsumedNonce(provider: provider, hash: hash)
            guard state.tables.consumedNonces[key] == nil else { return .replayed }
            state.tables.consumedNonces[key] = now
            return .accepted
        }
    }

    private static func requireSHA256(_ hash: [UInt8], table: String) throws(InMemoryConstraintViolation) {
        guard hash.count == 32 else { throw InMemoryConstraintViolation("\(table): nonce_hash must be 32 bytes") }
    }
}
