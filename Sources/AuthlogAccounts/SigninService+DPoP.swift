import AuthlogCore
import AuthlogCrypto

/// DPoP (RFC 9449) at sign-in: a sign-in that carries a proof binds its session's refresh-token family and its
/// access tokens to the proof's key, under the client's policy (`dpop.clients`, docs/configuration.md).
extension SigninService {
    /// The request's proof checked on its own, before the provider's proof is verified (so that a refused DPoP
    /// proof, a missing server nonce among them, costs the app no provider nonce): the proof to bind to, or nil
    /// when the sign-in is not to be bound. A refusal is recorded as `signin.failed` with its exact reason.
    /// - Throws: ``ServiceError`` 401 `invalid_dpop_proof`, 400 `use_dpop_nonce`.
    func offeredDPoPProof(
        provider: String,
        method: String?,
        metadata: RequestMetadata
    ) async throws(ServiceError) -> DPoPProof? {
        // The body's client_id is not verified yet: a proof is checked whatever its policy, and ``bind`` decides by
        // the verified client's. Only a client whose policy is `off` has a bad proof ignored rather than refused.
        let policy = self.dependencies.settings.dpop.policy(for: metadata.clientID)
        switch DPoPGate(dependencies: self.dependencies).offered(at: .now()) {
        case nil:
            guard policy == .required else { return nil }
            let refusal = DPoPRefusal(.missing, "this client's sign-ins need a DPoP proof")
            throw await self.refuse(refusal, provider: provider, method: method, metadata: metadata)
        case .failure(let refusal)?:
            guard policy != .off else { return nil }
            throw await self.refuse(refusal, provider: provider, method: method, metadata: metadata)
        case .success(let proof)?:
            return proof
        }
    }

    /// Once the provider's proof verified: records `proof`'s `jti` once and binds the sign-in to its key
    /// (`metadata.dpopKey`); refuses a replayed proof, and a sign-in without one when the verified client's
    /// policy requires it.
    /// - Throws: ``ServiceError`` 401 `invalid_dpop_proof`, 503 when the database is down.
    func bind(
        _ proof: DPoPProof?,
        provider: String,
        method: String?,
        metadata: inout RequestMetadata
    ) async throws(ServiceError) {
        let policy = self.dependencies.settings.dpop.policy(for: metadata.clientID)
        guard let proof, policy != .off else {
            guard policy == .required else { return }
            let refusal = DPoPRefusal(.missing, "this client's sign-ins need a DPoP proof")
            throw await self.refuse(refusal, provider: provider, method: method, metadata: metadata)
        }
        if let refusal = try await DPoPGate(dependencies: self.dependencies).recordOnce(proof) {
            throw await self.refuse(refusal, provider: provider, method: method, metadata: metadata)
        }
        metadata.dpopKey = proof.thumbprint
    }

    /// Records `refusal` as `signin.failed` (it never counts toward an identity's lockout) and returns the
    /// answer to give.
    private func refuse(
        _ refusal: DPoPRefusal,
        provider: String,
        method: String?,
        metadata: RequestMetadata
    ) async -> ServiceError {
        let name = self.provider(named: provider) == nil ? "unknown" : provider
        let answer = DPoPGate(dependencies: self.dependencies).answer(refusal, at: .now())
        return await self.record(
            ProofRefusal(provider: name, dpop: refusal, answer: answer),
            method: method,
            action: nil,
            metadata: metadata
        )
    }
}
