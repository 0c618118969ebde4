import AuthlogCore
import Foundation

extension SigninService {
    /// Adds the `signin.flagged` of an unusual sign-in the policy admits to its command, naming its
    /// `signin.succeeded` and the new session (so its refreshes are not flagged again for the same kinds), and
    /// its id and kinds to the answer (`signin_alert`).
    func flag(
        _ plan: inout (command: AppendCommand, response: TokenResponse),
        review: SigninReview,
        userID: UUID,
        provider: String,
        metadata: RequestMetadata
    ) throws(ServiceError) {
        guard let succeeded = plan.command.events.first(where: { $0.type == .signinSucceeded }) else { return }
        let flagged = try review.flaggedEvents(
            judged: succeeded,
            userID: userID,
            provider: provider,
            sessionID: succeeded.sessionID,
            metadata: metadata,
            dependencies: self.dependencies,
            at: succeeded.occurredAt
        )
        guard let event = flagged.first else { return }
        plan.command.events += flagged
        plan.response.signinAlert = (event.eventID, review.judgements.map(\.kind))
    }

    /// Records an unusual sign-in the policy refuses — `signin.failed` (`signin_unusual`, or
    /// `reauthentication_required` when only a fresh proof would do) and its `signin.flagged`, in one command —
    /// and returns the answer: 401 with that code. The failure names the user but not the subject: it does
    /// not count toward the identity's lockout (the proof was good).
    func recordRefused(
        _ review: SigninReview,
        provider: String,
        method: String,
        userID: UUID,
        metadata: RequestMetadata
    ) async -> ServiceError {
        self.dependencies.metrics.recordSignin(provider: provider, outcome: Outcome.failure.rawValue)
        let answer = review.refusal(window: self.dependencies.settings.reauthenticationWindow)
        do {
            let now = Timestamp.now()
            let failed = try metadata.envelope(
                stream: StreamName(category: "signin", id: provider),
                outcome: .failure,
                reason: answer.code,
                provider: provider,
                userID: userID,
                at: now,
                data: SigninFailed(reason: answer.code, method: method)
            )
            let flagged = try review.flaggedEvents(
                judged: failed,
                userID: userID,
                provider: provider,
                metadata: metadata,
                dependencies: self.dependencies,
                at: now
            )
            try await self.dependencies.store.append(AppendCommand(events: [failed] + flagged))
        } catch {
            return ServiceError.failure(error)
        }
        review.count(into: self.dependencies.metrics)
        return answer
    }
}
