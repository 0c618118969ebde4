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

    /// The events that record the findings about the judged event `judged` (of `user`, `provider`): nothing for a
    /// usual sign-in, else one `signin.flagged`.
    func flaggedEvents(
        judged: EventEnvelope,
        userID: UUID,
        provider: String,
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
}

extension SigninService {
    /// Judges a verified sign-in of `user` against their recent sign-ins: a new device, a new country or region,
    /// impossible travel, a hosting network. A new user has no history: nothing is judged, the sighting is
    /// recorded. The city and the location are sealed under the user's key (with a data key; without one
    /// they are not kept, and impossible travel is not judged). A place that cannot be sealed is left out;
    /// the sign-in goes on.
    /// - Throws: ``ServiceError`` 503 when the history cannot be read.
    func review(
        of identity: VerifiedIdentity,
        user: SigninUser,
        metadata: RequestMetadata,
        at now: Timestamp
    ) async throws(ServiceError) -> SigninReview {
        let alerts = self.dependencies.settings.alerts
        guard alerts.enabled else { return .none }
        let family = UserAgentFamily.of(metadata.userAgent)
        let deviceKey = self.dependencies.hasher.deviceKey(
            userID: user.id,
            deviceID: metadata.deviceID,
            family: family,
            address: metadata.ip
        )
        let located = metadata.ip.flatMap { alerts.places?.place(of: $0) }
        let place = located?.place
        var recent = RecentSignins()
        if !user.isNew {
            let limit = alerts.rules.historySignins
            recent = try await self.dependencies.storeCall {
                try await self.dependencies.signinHistory.recentSignins(of: user.id, limit: limit)
            }
        }
        let (sealedPlace, lastLocated) = await self.sealedPlaces(of: place, recent: recent, userID: user.id)
        let sighting = SigninSighting(
            deviceKey: deviceKey,
            deviceFamily: family,
            country: place?.country,
            region: place?.region,
            sealedPlace: sealedPlace
        )
        let history = SigninHistory(past: recent.signins, lastLocated: lastLocated, settings: alerts.rules.judge)
        let facts = SigninFacts(deviceKey: deviceKey, family: family, place: place, network: located?.network, at: now)
        let judgements = SigninJudge(settings: alerts.rules.judge).judge(facts, history: history)
        let decision = alerts.rules.decision(for: judgements, freshProof: self.isFresh(identity.authTime, at: now))
        return SigninReview(sighting: sighting, judgements: judgements, decision: decision)
    }

    /// Whether a proof made at `authTime` is fresh at `now`: within the re-authentication window (and not from
    /// the future by more than a minute of clock skew). A proof that does not say when is not fresh.
    private func isFresh(_ authTime: Timestamp?, at now: Timestamp) -> Bool {
        guard let authTime else { return false }
        let age = (now.microsecondsSinceEpoch - authTime.microsecondsSinceEpoch) / 1_000_000
        return age >= -60 && age <= self.dependencies.settings.reauthenticationWindow
    }

    /// This sign-in's place sealed under the user's key, and the last located sign-in opened from the newest
    /// sealed place of `recent`; both nil without a data key or when the key cannot be had.
    private func sealedPlaces(
        of place: Place?,
        recent: RecentSignins,
        userID: UUID
    ) async -> (sealed: String?, lastLocated: SigninHistory.Located?) {
        guard let vault = self.dependencies.vault else { return (nil, nil) }
        let newestSealed = recent.signins.first { $0.sighting?.sealedPlace != nil }
        let toSeal = SealedPlace(city: place?.city, location: place?.location)
        guard toSeal.json != nil || newestSealed != nil,
            let userKey = try? await vault.userKey(wrapped: recent.wrappedUserKey, for: userID)
        else { return (nil, nil) }
        let sealed = try? vault.seal(toSeal, userKey: userKey, for: userID)
        guard let newestSealed, let text = newestSealed.sighting?.sealedPlace,
            let location = vault.open(text, userKey: userKey, for: userID)?.location
        else { return (sealed, nil) }
        let lastLocated = SigninHistory.Located(
            location: location,
            country: newestSealed.sighting?.country,
            at: newestSealed.at
        )
        return (sealed, lastLocated)
    }
}
