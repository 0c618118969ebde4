import AuthlogCore
import Foundation

/// The token service's events: the session stream's events of a refresh token's session, their append expecting
/// the stream's version (with a rotation's sealed answer and the request's DPoP proof), and `token.refresh_failed`.
extension TokenService {
    /// Records `token.refresh_failed` of `record`'s session with a reason the token service decided.
    func recordRefreshFailure(
        reason: RefreshFailureReason,
        record: RefreshTokenRecord,
        metadata: RequestMetadata,
        at now: Timestamp
    ) async throws(ServiceError) {
        try await self.recordRefreshFailure(code: reason.rawValue, record: record, metadata: metadata, at: now)
    }

    /// Records `token.refresh_failed` of `record`'s session with a reason the token service did not decide
    /// itself (a refused proof, a failure of our own), spelled as the answer's error code. A refresh that names
    /// no token of authlog's is not recorded alone (``TokenUseRefusal/init(refreshRefusedFor:)``).
    func recordRefreshFailure(
        code reason: String,
        record: RefreshTokenRecord,
        metadata: RequestMetadata,
        at now: Timestamp
    ) async throws(ServiceError) {
        let event = try self.event(
            record: record,
            metadata: metadata,
            at: now,
            outcome: .failure,
            reason: reason,
            data: TokenRefreshFailed(reason: reason, tokenID: record.tokenID)
        )
        try await self.dependencies.storeCall { try await self.dependencies.store.append(event) }
    }

    /// Appends `events` (all on one session stream), with a rotation's sealed answer and the request's DPoP
    /// proof when given, if that stream is still at `version` and the proof was not recorded before.
    /// - Returns: nil once they are appended; else the step to take instead: `collided` when another command got to
    ///   the stream first, ``RefreshStep/proofReplayed`` when the proof was recorded before (nothing appended).
    /// - Throws: ``ServiceError`` 503 when the database is down, 500 for a failure of our own.
    func append(
        _ events: [EventEnvelope],
        expecting version: Int32,
        sealing successor: SealedSuccessor? = nil,
        recording proof: DPoPProofClaim?,
        collided: RefreshStep = .collided
    ) async throws(ServiceError) -> RefreshStep? {
        guard let stream = events.first?.stream else { return nil }
        do {
            try await self.dependencies.store.append(
                AppendCommand(
                    events: events,
                    expectedVersions: [stream: .exactly(version)],
                    sealedSuccessor: successor,
                    dpopProof: proof
                )
            )
            return nil
        } catch is WrongExpectedVersion {
            return collided
        } catch is DPoPProofReplayed {
            return .proofReplayed
        } catch {
            throw ServiceError.failure(error)
        }
    }

    /// An event on the session stream of `record`'s session.
    func event<Payload: EventPayload>(
        record: RefreshTokenRecord,
        metadata: RequestMetadata,
        at now: Timestamp,
        outcome: Outcome,
        reason: String?,
        data: Payload
    ) throws(ServiceError) -> EventEnvelope {
        try self.sessionEvent(
            userID: record.userID,
            sessionID: record.sessionID,
            provider: record.provider,
            metadata: metadata,
            at: now,
            outcome: outcome,
            reason: reason,
            data: data
        )
    }

    /// An event on the stream of `sessionID`, with the request's columns.
    func sessionEvent<Payload: EventPayload>(
        userID: UUID,
        sessionID: UUID,
        provider: String?,
        metadata: RequestMetadata,
        at now: Timestamp,
        outcome: Outcome,
        reason: String?,
        data: Payload
    ) throws(ServiceError) -> EventEnvelope {
        try self.dependencies.event(
            metadata,
            stream: .session(sessionID),
            outcome: outcome,
            reason: reason,
            provider: provider,
            userID: userID,
            sessionID: sessionID,
            at: now,
            data: data
        )
    }
}
