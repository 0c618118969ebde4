import AuthlogCore
import AuthlogProviders
import Foundation

/// Judges sign-ins and refreshes against what the log says of the user (docs/signin.md, "Sign-in alerts").
struct SigninReviewer {
    let dependencies: ServiceDependencies

    private var alerts: SigninAlertSettings { self.dependencies.settings.alerts }

    /// Judges a verified sign-in of `user` against their newest sign-ins (`known`, when the identity's read
    /// brought them; else read here): a new device, a new country or region, impossible travel, a hosting
    /// network. A new user has no history: nothing is judged, the sighting is recorded. The city and the
    /// location are sealed under the user's key (with a data key; without one they are not kept, and impossible
    /// travel is not judged). A place that cannot be sealed is left out; the sign-in goes on.
    /// - Throws: ``ServiceError`` 503 when the history cannot be read.
    func review(
        signinOf user: SigninUser,
        history known: RecentSignins?,
        authTime: Timestamp?,
        metadata: RequestMetadata,
        at now: Timestamp
    ) async throws(ServiceError) -> SigninReview {
        guard self.alerts.enabled else { return .none }
        let facts = self.facts(of: user.id, metadata: metadata, at: now)
        var recent = known ?? RecentSignins()
        if !user.isNew && known == nil {
            let rules = self.alerts.rules
            recent = try await self.dependencies.storeCall {
                try await self.dependencies.signinHistory.recentSignins(
                    of: user.id,
                    limit: rules.historySignins,
                    devices: rules.judge.maximumDevices,
                    areas: rules.judge.maximumAreas
                )
            }
        }
        let (sealedPlace, lastLocated) = await self.sealedPlaces(
            of: facts.place,
            newestSealed: recent.newestSealed,
            wrappedKey: recent.wrappedUserKey,
            userID: user.id
        )
        var history = recent.history
        history.lastLocated = lastLocated
        let judgements = SigninJudge(settings: self.alerts.rules.judge).judge(facts, history: history)
        return SigninReview(
            sighting: Self.sighting(of: facts, sealedPlace: sealedPlace, byDeviceID: metadata.deviceID != nil),
            judgements: judgements,
            decision: self.alerts.rules.decision(for: judgements, freshProof: self.isFresh(authTime, at: now))
        )
    }

    /// Judges a refresh against the sign-in that started its session (``RefreshTokenRecord/sessionSignin``, read
    /// with the token in one statement): another device (when the sign-in sent AuthlogClient's device id, a
    /// refresh with another id or with none is another device: the refresh token was copied; a session signed in
    /// without one is not judged on devices, since a network change is no sign of a moved token), another
    /// country or region, impossible travel since the sign-in, a hosting network. Each kind is flagged once per
    /// session (what its sign-in was flagged for counts), so a user who travels is told once, not at every
    /// refresh. A refresh carries no provider proof, so `reauthenticate` refuses it (sign in again).
    func review(
        refreshOf record: RefreshTokenRecord,
        metadata: RequestMetadata,
        at now: Timestamp
    ) async -> SigninReview {
        guard self.alerts.enabled, let start = record.sessionSignin, let signin = start.signin,
            let sighting = signin.sighting
        else { return .none }
        // From the sign-in's own network the place is the sign-in's: neither looked up nor opened (most refreshes).
        let sameNetwork =
            metadata.ip.map(IdentityHasher.networkPrefix) != nil
            && metadata.ip.map(IdentityHasher.networkPrefix) == start.address.map(IdentityHasher.networkPrefix)
        var facts = self.facts(of: record.userID, metadata: metadata, at: now, lookingUp: !sameNetwork)
        if !sighting.byDeviceID { facts.deviceKey = sighting.deviceKey }
        let lastLocated =
            sameNetwork
            ? nil
            : await self.sealedPlaces(
                of: nil,
                newestSealed: sighting.sealedPlace.map {
                    SealedSighting(at: signin.at, sealedPlace: $0, country: sighting.country)
                },
                wrappedKey: start.wrappedUserKey,
                userID: record.userID
            ).lastLocated
        // The session's sign-in as a history of one, summed up as every store sums a user's sign-ins.
        var history = RecentSignins.summing(
            [signin],
            devices: self.alerts.rules.judge.maximumDevices,
            areas: self.alerts.rules.judge.maximumAreas,
            wrappedUserKey: nil
        ).history
        history.lastLocated = lastLocated
        let judgements = SigninJudge(settings: self.alerts.rules.judge).judge(facts, history: history)
            .filter { !start.flaggedKinds.contains($0.kind) }
        return SigninReview(
            sighting: Self.sighting(of: facts, sealedPlace: nil, byDeviceID: metadata.deviceID != nil),
            judgements: judgements,
            decision: self.alerts.rules.decision(for: judgements, freshProof: false)
        )
    }

    /// What the request says of the device and the place.
    private func facts(
        of userID: UUID,
        metadata: RequestMetadata,
        at now: Timestamp,
        lookingUp: Bool = true
    ) -> SigninFacts {
        let family = UserAgentFamily.of(metadata.userAgent)
        let located = lookingUp ? metadata.ip.flatMap { self.alerts.places?.place(of: $0) } : nil
        return SigninFacts(
            deviceKey: self.dependencies.hasher.deviceKey(
                userID: userID,
                deviceID: metadata.deviceID,
                family: family,
                address: metadata.ip
            ),
            family: family,
            place: located?.place,
            network: located?.network,
            at: now
        )
    }

    private static func sighting(of facts: SigninFacts, sealedPlace: String?, byDeviceID: Bool) -> SigninSighting {
        SigninSighting(
            deviceKey: facts.deviceKey,
            deviceFamily: facts.family,
            country: facts.place?.country,
            region: facts.place?.region,
            sealedPlace: sealedPlace,
            byDeviceID: byDeviceID
        )
    }

    /// Whether a proof made at `authTime` is fresh at `now`: within the re-authentication window (and not from
    /// the future by more than a minute of clock skew). A proof that does not say when is not fresh.
    private func isFresh(_ authTime: Timestamp?, at now: Timestamp) -> Bool {
        guard let authTime else { return false }
        let age = (now.microsecondsSinceEpoch - authTime.microsecondsSinceEpoch) / 1_000_000
        return age >= -60 && age <= self.dependencies.settings.reauthenticationWindow
    }

    /// `place` sealed under the user's key, and the located sign-in opened from `newestSealed`; both nil without
    /// a data key or when the key cannot be had.
    private func sealedPlaces(
        of place: Place?,
        newestSealed: SealedSighting?,
        wrappedKey: [UInt8]?,
        userID: UUID
    ) async -> (sealed: String?, lastLocated: SigninHistory.Located?) {
        guard let vault = self.dependencies.vault else { return (nil, nil) }
        let toSeal = SealedPlace(city: place?.city, location: place?.location)
        guard toSeal.json != nil || newestSealed != nil,
            let userKey = try? await vault.userKey(wrapped: wrappedKey, for: userID)
        else { return (nil, nil) }
        let sealed = try? vault.seal(toSeal, userKey: userKey, for: userID)
        guard let newestSealed,
            let location = vault.open(newestSealed.sealedPlace, userKey: userKey, for: userID)?.location
        else { return (sealed, nil) }
        let lastLocated = SigninHistory.Located(location: location, country: newestSealed.country, at: newestSealed.at)
        return (sealed, lastLocated)
    }
}
