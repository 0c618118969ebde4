import AuthlogCore
import AuthlogCrypto

/// DPoP (RFC 9449) at the token routes: a family bound at sign-in refreshes only with a proof by its key, and
/// an access token with `cnf.jkt` is taken only with a proof by that key that hashes it (`ath`).
extension TokenService {
    /// Checks the request's proof against `record`'s family before the token's own state decides anything, so
    /// that a spent token of a bound family replayed without the key is refused as such and ends nothing.
    /// A refusal is recorded as `token.refresh_failed` with its exact reason, then answered.
    /// - Returns: The proof's record, for the command that acts on the token to take with its events (so a
    ///   refresh costs no statement of its own for it); nil for a Bearer family.
    /// - Throws: ``ServiceError`` 401 `invalid_dpop_proof`, 400 `use_dpop_nonce`, 503 when the database is down.
    func requireProof(
        _ offered: Result<DPoPProof, DPoPRefusal>?,
        for record: RefreshTokenRecord,
        metadata: RequestMetadata,
        at now: Timestamp
    ) async throws(ServiceError) -> DPoPProofClaim? {
        let gate = DPoPGate(dependencies: self.dependencies)
        switch self.checked(offered, for: record, gate: gate) {
        case .success(let claim):
            return claim
        case .failure(let refusal):
            throw try await self.refuse(refusal, record: record, metadata: metadata, at: now)
        }
    }

    /// Records a refresh refused for its proof as `token.refresh_failed` with the exact reason, and returns the
    /// answer to give: also for a proof that the command acting on the token found recorded before.
    /// - Throws: ``ServiceError`` 503 when the refusal cannot be recorded.
    func refuse(
        _ refusal: DPoPRefusal,
        record: RefreshTokenRecord,
        metadata: RequestMetadata,
        at now: Timestamp
    ) async throws(ServiceError) -> ServiceError {
        var metadata = metadata
        metadata.clientID = record.clientID
        try await self.recordRefreshFailure(code: refusal.reason.rawValue, record: record, metadata: metadata, at: now)
        return DPoPGate(dependencies: self.dependencies).answer(refusal, at: now)
    }

    /// Why `offered` does not do for `record`'s family, if it does not; else the record of a proof that does.
    private func checked(
        _ offered: Result<DPoPProof, DPoPRefusal>?,
        for record: RefreshTokenRecord,
        gate: DPoPGate
    ) -> Result<DPoPProofClaim?, DPoPRefusal> {
        let policy = self.dependencies.settings.dpop.policy(for: record.clientID)
        guard let bound = record.dpopJKT else {
            // A Bearer family's spent or revoked token is judged by its state (a spent one past the grace is
            // reuse, and ends the session), whatever header came with it.
            guard record.state == .active else { return .success(nil) }
            // A family is bound at sign-in only: a proof never binds (or upgrades) a Bearer family later.
            switch offered {
            case nil:
                return policy == .required
                    ? .failure(
                        DPoPRefusal(.missing, "this client's sessions need a DPoP key; sign in again with a proof")
                    )
                    : .success(nil)
            case _ where policy == .off: return .success(nil)
            case .failure(let refusal)?: return .failure(refusal)
            case .success?:
                return .failure(DPoPRefusal(.familyUnbound, "the refresh token's family is not bound to a key"))
            }
        }
        switch offered {
        case nil: return .failure(DPoPRefusal(.missing, "the refresh token is bound to a key; send a DPoP proof"))
        case .failure(let refusal)?: return .failure(refusal)
        case .success(let proof)?:
            do {
                try proof.requireKey(bound)
            } catch {
                return .failure(error)
            }
            return .success(gate.claim(proof))
        }
    }

    /// Checks the request's proof for an access token bound to a key (`cnf.jkt`): by that key, hashing the
    /// token (`ath`); then the token's session. An unbound token needs none, and must not come as `DPoP`. A
    /// refusal carries ``ServiceError/tokenUseRefusal`` for the HTTP layer to record.
    /// - Throws: ``ServiceError`` 401 `invalid_dpop_proof` or `use_dpop_nonce`.
    func requireProof(
        forAccessToken token: String,
        claims: AccessTokenClaims
    ) throws(ServiceError) -> DPoPProof? {
        do {
            return try self.checkedProof(forAccessToken: token, bound: claims.dpopJKT)
        } catch {
            throw DPoPGate(dependencies: self.dependencies).answer(error, accessToken: claims, at: .now())
        }
    }

    private func checkedProof(forAccessToken token: String, bound: String?) throws(DPoPRefusal) -> DPoPProof? {
        let usesDPoPScheme = DPoPOffer.current?.authorizationScheme?.lowercased() == "dpop"
        guard let bound else {
            // RFC 9449 §7.1: the DPoP scheme is for bound tokens only.
            guard !usesDPoPScheme else {
                throw DPoPRefusal(.familyUnbound, "the access token is not bound to a key: send it as Bearer")
            }
            return nil
        }
        guard usesDPoPScheme else {
            throw DPoPRefusal(.missing, "the access token is bound to a key: send it as Authorization: DPoP")
        }
        switch DPoPGate(dependencies: self.dependencies).offered(accessToken: token, at: .now()) {
        case nil: throw DPoPRefusal(.missing, "the access token is bound to a key")
        case .failure(let refusal)?: throw refusal
        case .success(let proof)?:
            try proof.requireKey(bound)
            return proof
        }
    }

    /// Records an access token's checked proof once (after its session was found active).
    /// - Throws: ``ServiceError`` 401 `invalid_dpop_proof` (`dpop_replayed`), 503.
    func recordOnce(_ proof: DPoPProof?, accessToken claims: AccessTokenClaims) async throws(ServiceError) {
        guard let proof else { return }
        let gate = DPoPGate(dependencies: self.dependencies)
        if let refusal = try await gate.recordOnce(proof) {
            throw gate.answer(refusal, accessToken: claims, at: .now())
        }
    }
}
