public import AuthlogCore
public import Foundation

/// ``SigninHistoryReads`` over the in-memory log and key table, with the order and limit of AuthlogStore's
/// `SigninHistoryQueries`.
public struct InMemorySigninHistory: SigninHistoryReads {
    let storage: InMemoryStorage

    /// The history of the newest `limit` `signin.succeeded` of `userID`, as AuthlogStore's
    /// `SigninHistoryQueries` sums it up.
    public func recentSignins(of userID: UUID, limit: Int, devices: Int, areas: Int) async throws -> RecentSignins {
        self.storage.withState { state in
            let disowned = state.log.envelopes
                .filter { $0.userID == userID && $0.type == .accountNotMeReported }
                .sorted { $1.occurredAt < $0.occurredAt }
                .prefix(100)
                .flatMap { report in
                    ((try? report.payload(as: AccountNotMeReported.self))?.disownedDeviceKeys ?? []).map {
                        DisownedDevice(key: $0, at: report.occurredAt)
                    }
                }
            // The disowned sign-ins are left out before the limit, as AuthlogStore's statement does.
            let signins = state.log.envelopes
                .filter { $0.userID == userID && $0.type == .signinSucceeded }
                .sorted { $1.occurredAt < $0.occurredAt }
                .map(Self.pastSignin)
                .filter { !DisownedDevice.leavesOut($0, disowned) }
                .prefix(max(limit, 0))
            return RecentSignins.summing(
                Array(signins),
                devices: devices,
                areas: areas,
                wrappedUserKey: state.tables.userKeys[userID],
                disowned: disowned
            )
        }
    }

    /// The device key the `signin.succeeded` `eventID` of `userID` recorded, as AuthlogStore reads it.
    public func deviceKey(ofSignin eventID: UUID, of userID: UUID) async throws -> String? {
        self.storage.withState { state in
            state.log.envelopes
                .first { $0.eventID == eventID && $0.userID == userID && $0.type == .signinSucceeded }
                .flatMap { try? $0.payload(as: SigninSucceeded.self) }?.deviceKey
        }
    }

    /// The identity rows with each linked active user's history, as AuthlogStore's `SigninHistoryQueries` reads
    /// them.
    public func identitiesWithHistory(
        provider: String,
        subjectHashes: [String],
        limit: Int,
        devices: Int,
        areas: Int
    ) async throws -> [String: (identity: IdentityRecord, history: RecentSignins?)] {
        let identities = try await InMemorySessionReads(storage: self.storage)
            .identities(provider: provider, subjectHashes: subjectHashes)
        var found: [String: (identity: IdentityRecord, history: RecentSignins?)] = [:]
        for (hash, identity) in identities {
            let linked = !identity.isReleased && identity.userIsActive
            found[hash] = (
                identity,
                linked
                    ? try await self.recentSignins(of: identity.userID, limit: limit, devices: devices, areas: areas)
                    : nil
            )
        }
        return found
    }

    /// What a `signin.succeeded` recorded.
    static func pastSignin(_ envelope: EventEnvelope) -> PastSignin {
        let payload = try? envelope.payload(as: SigninSucceeded.self)
        var sighting: SigninSighting?
        if let payload, let key = payload.deviceKey, let family = payload.deviceFamily {
            sighting = SigninSighting(
                deviceKey: key,
                deviceFamily: family,
                country: payload.country,
                region: payload.region,
                sealedPlace: payload.sealedPlace,
                byDeviceID: payload.deviceIdSent ?? false
            )
        }
        return PastSignin(at: envelope.occurredAt, sighting: sighting)
    }
}
