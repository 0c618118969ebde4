import AuthlogCore
import AuthlogProviders
import Foundation

/// A sign-in judged against its user's history (docs/signin.md, "Sign-in alerts"): what its `signin.succeeded`
/// records of where it came from, the findings, and what the policy makes of them.
struct SigninReview: Sendable {
    /// What the sign-in records (nil with alerts off).
    var sighting: SigninSighting?
    /// The findings, in ``SigninJudgement/Kind`` order (none: a usual sign-in).
    var judgements: [SigninJudgement] = []
    /// What the policy makes of the findings (nil when there are none).
    var decision: SigninAlertDecision?

    /// The review of a sign-in with alerts off, or of nothing unusual.
    static let none = SigninReview()

    /// The events that record the findings about the judged event `judged` (of `user`, `provider`; a refresh's
    /// names its session): nothing for a usual sign-in, else one `signin.flagged`.
    func flaggedEvents(
        judged: EventEnvelope,
        userID: UUID,
        provider: String,
        sessionID: UUID? = nil,
        metadata: RequestMetadata,
        dependencies: ServiceDependencies,
        at now: Timestamp
    ) throws(ServiceError) -> [EventEnvelope] {
        guard let decision = self.decision, !self.judgements.isEmpty else { return [] }
        return [
            try dependencies.event(
                metadata,
                stream: StreamName.user(userID),
                outcome: decision.admits ? .success : .failure,
                reason: SigninFlagged.reason(for: self.judgements),
                provider: provider,
                userID: userID,
                sessionID: sessionID,
                at: now,
                data: SigninFlagged(
                    judgedEventID: judged.eventID,
                    judgements: self.judgements,
                    decision: decision,
                    country: self.sighting?.country,
                    region: self.sighting?.region,
                    deviceFamily: self.sighting?.deviceFamily
                )
            )
        ]
    }

    /// Counts the judgements (`authlog_signin_judgements_total`), once the command that records them is in.
    func count(into metrics: any SigninMetrics) {
        guard let decision = self.decision else { return }
        for judgement in self.judgements {
            metrics.recordSigninJudgement(kind: judgement.kind.rawValue, decision: decision.rawValue)
        }
    }

    /// The answer to a sign-in or refresh the policy refuses: 401 `reauthentication_required` when only a fresh
    /// proof (within `window` seconds) would do, 401 `signin_unusual` when it is denied.
    func refusal(window: Int64) -> ServiceError {
        if self.decision == .reauthenticationRequired {
            return ServiceError(
                .unauthorized,
                SigninFailureReason.reauthenticationRequired.rawValue,
                "This sign-in is unusual for the account: sign in at the provider again (a proof made within the last \(window) seconds)."
            )
        }
        return ServiceError(
            .unauthorized,
            SigninFailureReason.signinUnusual.rawValue,
            "This sign-in is unusual for the account and is refused; sign in from a device or place used before."
        )
    }
}
