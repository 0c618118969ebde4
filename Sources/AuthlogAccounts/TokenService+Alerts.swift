import AuthlogCore
import Foundation

extension TokenService {
    /// The `signin.flagged` of a refresh judged unusual, naming its `token.refreshed` and the session.
    func flaggedEvents(
        _ review: SigninReview,
        judged: EventEnvelope,
        record: RefreshTokenRecord,
        metadata: RequestMetadata
    ) throws(ServiceError) -> [EventEnvelope] {
        try review.flaggedEvents(
            judged: judged,
            userID: record.userID,
            provider: record.provider ?? "unknown",
            sessionID: record.sessionID,
            metadata: metadata,
            dependencies: self.dependencies,
            at: judged.occurredAt
        )
    }

    /// Records a refresh the policy refuses — `token.refresh_failed` (`signin_unusual`, or
    /// `reauthentication_required`: a refresh carries no provider proof) and its `signin.flagged`, in one
    /// command — and returns the answer: 401 with that code. The token is not spent: the app signs in again.
    func refuse(
        _ review: SigninReview,
        record: RefreshTokenRecord,
        metadata: RequestMetadata,
        at now: Timestamp
    ) async throws(ServiceError) -> ServiceError {
        let answer = review.refusal(window: self.dependencies.settings.reauthenticationWindow)
        let failed = try self.event(
            record: record,
            metadata: metadata,
            at: now,
            outcome: .failure,
            reason: answer.code,
            data: TokenRefreshFailed(reason: answer.code, tokenID: record.tokenID)
        )
        let flagged = try self.flaggedEvents(review, judged: failed, record: record, metadata: metadata)
        try await self.dependencies.append(AppendCommand(events: [failed] + flagged))
        review.count(into: self.dependencies.metrics)
        return answer
    }
}
