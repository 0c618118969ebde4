public import AuthlogCore
public import Foundation

/// ``SigninHistoryReads`` over the in-memory log and key table, with the order and limit of AuthlogStore's
/// `SigninHistoryQueries`.
public struct InMemorySigninHistory: SigninHistoryReads {
    let storage: InMemoryStorage

    /// The newest `limit` `signin.succeeded` of `userID`, newest first, and the user's wrapped key.
    public func recentSignins(of userID: UUID, limit: Int) async throws -> RecentSignins {
        self.storage.withState { state in
            let signins = state.log.envelopes
                .filter { $0.userID == userID && $0.type == .signinSucceeded }
                .sorted { $1.occurredAt < $0.occurredAt }
                .prefix(max(limit, 0))
                .map(Self.pastSignin)
            // Of the sealed places only the newest is read, as in PostgreSQL.
            let newestSealed = signins.firstIndex { $0.sighting?.sealedPlace != nil }
            let trimmed = signins.enumerated().map { index, signin in
                var signin = signin
                if index != newestSealed { signin.sighting?.sealedPlace = nil }
                return signin
            }
            return RecentSignins(signins: trimmed, wrappedUserKey: state.tables.userKeys[userID])
        }
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
