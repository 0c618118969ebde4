import AuthlogCore
import Foundation

/// The refresh-token reuse grace window (`refresh_token.reuse_grace_seconds`, docs/signin.md).
///
/// A rotation seals its answer under the token it spends (``SuccessorSeal``) and keeps the box with that
/// token's row. When the spent token comes back within the window and its successor is still unspent, the
/// box opens to the same pair, which is given again and recorded as `token.refresh_replayed`. Outside the
/// window, once the successor was used, or when the box does not open, the refresh is reuse as before.
extension TokenService {
    /// The box of a rotation's answer for its token's row; `nil` when the grace window is off (0), or when
    /// sealing failed, which only takes the grace away from this one rotation.
    func sealedSuccessor(
        of response: TokenResponse,
        rotation: (eventID: UUID, payload: TokenRefreshed),
        presentedToken: String,
        record: RefreshTokenRecord
    ) -> SealedSuccessor? {
        guard self.dependencies.settings.refreshReuseGrace > 0 else { return nil }
        let answer = RotationAnswer(
            refreshedEventID: rotation.eventID,
            refreshTokenID: rotation.payload.newTokenID,
            refreshToken: response.refreshToken,
            refreshTokenExpiresAt: response.refreshTokenExpiresAt,
            accessTokenID: rotation.payload.accessTokenID,
            accessToken: response.accessToken,
            accessTokenExpiresAt: response.accessTokenExpiresAt,
            alertEventID: response.signinAlert?.eventID,
            alertKinds: response.signinAlert?.kinds
        )
        guard let sealed = try? SuccessorSeal.seal(answer, presentedToken: presentedToken, record: record) else {
            return nil
        }
        return SealedSuccessor(
            tokenID: record.tokenID,
            familyID: record.familyID,
            sessionID: record.sessionID,
            sealed: sealed
        )
    }

    /// The step for a spent token presented again: the pair its rotation gave, recorded as
    /// `token.refresh_replayed`, when the grace applies; `.collidedWithReplay` when the session stream moved
    /// first; `nil` when the grace does not apply (reuse). The window is judged at `presentedAt`, when the
    /// request came: concurrent replays take turns on the session stream, and a loaded server may give the
    /// last its turn after the window, though the client sent it in time.
    ///
    /// The replay is judged as a refresh is (sign-in alerts): a copy of the token sent from another device
    /// within the window is flagged, and refused when the policy says so, rather than handed the pair. The
    /// answer carries the replay's own alert, else the one the rotation raised (its answer may be what was lost).
    func replay(
        _ presentedToken: String,
        record: RefreshTokenRecord,
        proof: DPoPProofClaim?,
        metadata: RequestMetadata,
        at now: Timestamp,
        presentedAt: Timestamp
    ) async throws(ServiceError) -> RefreshStep? {
        guard
            let answer = try await self.openSuccessor(
                presentedToken,
                record: record,
                at: now,
                presentedAt: presentedAt
            )
        else { return nil }
        let review = await SigninReviewer(dependencies: self.dependencies)
            .review(refreshOf: record, metadata: metadata, at: now)
        if let decision = review.decision, !decision.admits {
            throw try await self.refuse(review, record: record, metadata: metadata, at: now)
        }
        let event = try self.event(
            record: record,
            metadata: metadata,
            at: now,
            outcome: .success,
            reason: nil,
            data: TokenRefreshReplayed(
                tokenID: record.tokenID,
                familyID: record.familyID,
                refreshedEventID: answer.refreshedEventID,
                newTokenID: answer.refreshTokenID,
                accessTokenID: answer.accessTokenID
            )
        )
        let flagged = try self.flaggedEvents(review, judged: event, record: record, metadata: metadata)
        let unappended = try await self.append(
            [event] + flagged,
            expecting: record.sessionVersion,
            recording: proof,
            collided: .collidedWithReplay
        )
        if let step = unappended { return step }
        review.count(into: self.dependencies.metrics)
        var response = TokenResponse(
            userID: record.userID,
            sessionID: record.sessionID,
            isNewUser: false,
            accessToken: answer.accessToken,
            accessTokenExpiresAt: answer.accessTokenExpiresAt,
            refreshToken: answer.refreshToken,
            refreshTokenExpiresAt: answer.refreshTokenExpiresAt,
            dpopBound: record.dpopJKT != nil
        )
        if let alert = flagged.first {
            response.signinAlert = (alert.eventID, review.judgements.map(\.kind))
        } else if let eventID = answer.alertEventID, let kinds = answer.alertKinds, !kinds.isEmpty {
            response.signinAlert = (eventID, kinds)
        }
        return .answered(response)
    }

    /// The answer sealed with `record`'s spent token, when the window is open, the presented token opens the
    /// box, the session is within its lifetimes and the successor is still unspent.
    private func openSuccessor(
        _ presentedToken: String,
        record: RefreshTokenRecord,
        at now: Timestamp,
        presentedAt: Timestamp
    ) async throws(ServiceError) -> RotationAnswer? {
        let grace = self.dependencies.settings.refreshReuseGrace
        guard grace > 0, let sealed = record.sealedSuccessor, let rotatedAt = record.rotatedAt,
            presentedAt < rotatedAt.adding(seconds: grace), self.passedLimit(of: record.session, at: now) == nil,
            let answer = SuccessorSeal.open(sealed, presentedToken: presentedToken, record: record)
        else { return nil }
        let successor = try await self.dependencies.storeCall {
            try await self.dependencies.queries.refreshToken(hash: RefreshTokenSecret.hash(of: answer.refreshToken))
        }
        guard let successor, successor.tokenID == answer.refreshTokenID, successor.state == .active,
            successor.session.isUsable, successor.expiresAt > now
        else { return nil }
        return answer
    }
}
