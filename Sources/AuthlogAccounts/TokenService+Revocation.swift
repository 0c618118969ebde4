import AuthlogCore
import AuthlogCrypto
import Foundation

/// The `token_type_hint` values of RFC 7009 §2.1.
public enum TokenTypeHint: String, Sendable {
    /// authlog's access token (a JWT).
    case accessToken = "access_token"
    /// authlog's refresh token (`alr_…`).
    case refreshToken = "refresh_token"
}

extension TokenService {
    /// RFC 7009 revocation by an authenticated client. A refresh token revokes its whole rotation family and
    /// ends its session (`token.revoked` with the family), so the session's access tokens turn inactive too;
    /// an access token ends its session the same way (`token.revoked` for its `jti`, then `session.revoked`
    /// with reason `token_revoked`), since a JWT cannot be recalled on its own. An unknown, invalid, expired
    /// or already revoked token changes nothing (§2.2: the answer is 200 all the same).
    ///
    /// The client's credentials authorize the revocation, so a DPoP proof is not needed; one that is sent must
    /// check out, and a refresh token bound to another key than the proof's is not revoked.
    /// - Throws: ``ServiceError`` 401 `invalid_dpop_proof` for a refused proof, 503 when the database is down.
    public func revoke(
        _ token: String,
        hint: TokenTypeHint?,
        clientID: String,
        metadata: RequestMetadata
    ) async throws(ServiceError) {
        let actor = "client:\(EnvelopeText.normalized(clientID, limit: EnvelopeText.Limit.code) ?? "unknown")"
        let gate = DPoPGate(dependencies: self.dependencies)
        var key: String?
        switch gate.offered(at: .now()) {
        case nil: break
        case .failure(let refusal)?: throw gate.answer(refusal, unrecordedFor: nil, at: .now())
        case .success(let proof)?:
            // The client's credentials were checked first, so only a known client grows the ledger.
            if let refusal = try await gate.recordOnce(proof) {
                throw gate.answer(refusal, unrecordedFor: nil, at: .now())
            }
            key = proof.thumbprint
        }
        // The hint orders the search (§2.1); a wrong hint still finds the token.
        let order: [TokenTypeHint] =
            hint == .accessToken ? [.accessToken, .refreshToken] : [.refreshToken, .accessToken]
        for kind in order {
            switch kind {
            case .refreshToken:
                if try await self.revokeRefreshToken(token, actor: actor, key: key, metadata: metadata) { return }
            case .accessToken:
                if try await self.revokeAccessToken(token, actor: actor, key: key, metadata: metadata) { return }
            }
        }
    }

    private func revokeRefreshToken(
        _ token: String,
        actor: String,
        key: String?,
        metadata: RequestMetadata
    ) async throws(ServiceError)
        -> Bool
    {
        guard token.hasPrefix(RefreshTokenSecret.prefix) else { return false }
        let record = try await self.dependencies.storeCall {
            try await self.dependencies.queries.refreshToken(hash: RefreshTokenSecret.hash(of: token))
        }
        guard let record else { return false }
        if let key, let bound = record.dpopJKT, key != bound {
            let refusal = DPoPRefusal(.wrongKey, "the refresh token is bound to another key")
            throw DPoPGate(dependencies: self.dependencies).answer(refusal, unrecordedFor: record, at: .now())
        }
        guard record.state != .revoked, record.session.isUsable else { return true }
        var metadata = metadata
        metadata.clientID = record.clientID
        let event = try self.event(
            record: record,
            metadata: metadata,
            at: .now(),
            outcome: .success,
            reason: TokenRevocationReason.clientRevocation.rawValue,
            data: TokenRevoked(
                tokenID: record.tokenID,
                tokenKind: TokenTypeHint.refreshToken.rawValue,
                reason: TokenRevocationReason.clientRevocation.rawValue,
                actor: actor,
                familyID: record.familyID
            )
        )
        try await self.dependencies.append(AppendCommand(event))
        return true
    }

    private func revokeAccessToken(
        _ token: String,
        actor: String,
        key: String?,
        metadata: RequestMetadata
    ) async throws(ServiceError)
        -> Bool
    {
        guard let (claims, session) = try await self.activeAccessTokenIfAny(token) else { return false }
        if let key, let bound = claims.dpopJKT, key != bound {
            let refusal = DPoPRefusal(.wrongKey, "the access token is bound to another key")
            var answer = DPoPGate(dependencies: self.dependencies).answer(refusal, at: .now())
            answer.tokenUseRefusal = TokenUseRefusal(refusal.reason.rawValue, accessToken: claims)
            throw answer
        }
        var metadata = metadata
        metadata.clientID = session.clientID
        let now = Timestamp.now()
        let events = [
            try self.sessionEvent(
                userID: claims.userID,
                sessionID: claims.sessionID,
                provider: session.provider,
                metadata: metadata,
                at: now,
                outcome: .success,
                reason: TokenRevocationReason.clientRevocation.rawValue,
                data: TokenRevoked(
                    tokenID: claims.tokenID,
                    tokenKind: TokenTypeHint.accessToken.rawValue,
                    reason: TokenRevocationReason.clientRevocation.rawValue,
                    actor: actor
                )
            ),
            try self.sessionEvent(
                userID: claims.userID,
                sessionID: claims.sessionID,
                provider: session.provider,
                metadata: metadata,
                at: now,
                outcome: .success,
                reason: SessionEndReason.tokenRevoked.rawValue,
                data: SessionRevoked(reason: .tokenRevoked, actor: actor)
            ),
        ]
        try await self.dependencies.append(AppendCommand(events: events))
        return true
    }
}
