import AuthlogCore
public import AuthlogCrypto
public import HTTPTypes

/// The DPoP (RFC 9449) checks every route shares: the request's proof checked on its own (signature, claims,
/// nonce), its `jti` recorded once across every `serve` process of the database, and the answer to a refusal.
///
/// The `jti` is recorded only after the request's own credential checked out (a known refresh token, a valid
/// access token, a provider's proof), so an anonymous client cannot grow the ledger.
struct DPoPGate: Sendable {
    let dependencies: ServiceDependencies

    /// The header that hands out the server's nonce.
    static let nonceHeader = HTTPField.Name("DPoP-Nonce")

    private var settings: DPoPSettings { self.dependencies.settings.dpop }

    private var verifier: DPoPProofVerifier {
        DPoPProofVerifier(maximumAge: self.settings.maximumAge, maximumSkew: self.settings.maximumSkew)
    }

    /// The current request's proof checked on its own, for a request that sends `accessToken` (whose hash the
    /// proof's `ath` must be); nil when the request carried no `DPoP` header.
    func offered(accessToken: String? = nil, at now: Timestamp) -> Result<DPoPProof, DPoPRefusal>? {
        guard let offer = DPoPOffer.current, !offer.proofs.isEmpty else { return nil }
        guard offer.proofs.count == 1 else {
            return .failure(DPoPRefusal(.several, "send one DPoP header"))
        }
        guard let target = offer.target else {
            return .failure(DPoPRefusal(.urlMismatch, "the request's URL could not be formed"))
        }
        let request = DPoPRequest(method: offer.method, target: target, accessToken: accessToken)
        do {
            return .success(
                try self.verifier.verify(offer.proofs[0], for: request, nonces: self.dependencies.dpopNonces, at: now)
            )
        } catch {
            return .failure(error)
        }
    }

    /// Records `proof`'s `jti` until the proof could no longer verify; a refusal when it was recorded before.
    /// - Throws: ``ServiceError`` 503 when the database is down.
    func recordOnce(_ proof: DPoPProof) async throws(ServiceError) -> DPoPRefusal? {
        let claim = self.claim(proof)
        let fresh = try await self.dependencies.storeCall {
            try await self.dependencies.dpopProofs.recordOnce(proofHash: claim.proofHash, expiresAt: claim.expiresAt)
        }
        return fresh ? nil : Self.replayed
    }

    /// `proof`'s record, for a command that records it with its events (``AppendCommand/dpopProof``): kept until
    /// the proof could no longer verify, and at least a whole window after now, whatever its iat said (a request
    /// checked on arrival may be recorded seconds later, after a provider's answer, and processes' clocks differ;
    /// the purge must not free a proof that a replay checked in time could still meet).
    func claim(_ proof: DPoPProof) -> DPoPProofClaim {
        let window = self.settings.maximumAge + self.settings.maximumSkew + 1
        let expiresAt = max(self.verifier.lifetimeEnd(of: proof), Timestamp.now().adding(seconds: window))
        return DPoPProofClaim(proofHash: proof.replayKey, expiresAt: expiresAt)
    }

    /// The refusal of a proof recorded before.
    static let replayed = DPoPRefusal(.replayed, "this proof was used before")

    /// The answer to `refusal`: 401 `invalid_dpop_proof`, or `use_dpop_nonce` with the nonce to use (400 at
    /// the token endpoints, RFC 9449 §8; 401 where an access token was sent, §9), each with a `DPoP` challenge
    /// and the exact reason.
    func answer(_ refusal: DPoPRefusal, withAccessToken: Bool = false, at now: Timestamp) -> ServiceError {
        let code = refusal.oauthError
        let status: HTTPResponse.Status = code == "use_dpop_nonce" && !withAccessToken ? .badRequest : .unauthorized
        let algorithms = DPoPProofVerifier.algorithms.map(\.rawValue).joined(separator: " ")
        var headers: HTTPFields = [.wwwAuthenticate: "DPoP error=\"\(code)\", algs=\"\(algorithms)\""]
        if let nonces = self.dependencies.dpopNonces, let name = Self.nonceHeader {
            headers[name] = nonces.current(at: now)
        }
        var error = ServiceError(status, code, "The DPoP proof was refused: \(refusal.message).", headers: headers)
        error.extraMembers = [("reason", .string(refusal.reason.rawValue))]
        return error
    }

    /// The answer to a refused proof at revocation, carrying what the HTTP layer records: the refresh token's
    /// session when `record` is known, else the reason alone.
    func answer(_ refusal: DPoPRefusal, unrecordedFor record: RefreshTokenRecord?, at now: Timestamp) -> ServiceError {
        var error = self.answer(refusal, at: now)
        let reason = refusal.reason.rawValue
        error.tokenUseRefusal = record.map { TokenUseRefusal(reason, refreshToken: $0) } ?? TokenUseRefusal(reason)
        return error
    }

    /// The answer to `refusal` where an access token whose claims checked out was sent, carrying what the HTTP
    /// layer records (``ServiceError/tokenUseRefusal``).
    func answer(_ refusal: DPoPRefusal, accessToken claims: AccessTokenClaims, at now: Timestamp) -> ServiceError {
        var error = self.answer(refusal, withAccessToken: true, at: now)
        error.tokenUseRefusal = TokenUseRefusal(refusal.reason.rawValue, accessToken: claims)
        return error
    }
}
