public import Foundation

/// What a successful sign-in records of where it came from (`signin.succeeded`'s `device_key`, `device_family`,
/// `country`, `region` and `sealed_place`): the user's next sign-ins are judged against these (``SigninHistory``).
public struct SigninSighting: Sendable, Equatable {
    /// The device's keyed hash.
    public var deviceKey: String
    /// The user agent's family.
    public var deviceFamily: String
    /// The country's ISO code, when the city file gives one.
    public var country: String?
    /// The region, when the city file gives one.
    public var region: String?
    /// The city and the coarse location sealed under the user's key (``SealedPlace``).
    public var sealedPlace: String?
    /// Whether the device key is of AuthlogClient's device id (not of the user agent and the network): only
    /// then can a refresh tell another device by its key.
    public var byDeviceID: Bool

    /// Creates a sighting.
    public init(
        deviceKey: String,
        deviceFamily: String,
        country: String? = nil,
        region: String? = nil,
        sealedPlace: String? = nil,
        byDeviceID: Bool = false
    ) {
        self.byDeviceID = byDeviceID
        self.deviceKey = deviceKey
        self.deviceFamily = deviceFamily
        self.country = country
        self.region = region
        self.sealedPlace = sealedPlace
    }
}

/// One past successful sign-in of a user, as the history reads it back from its `signin.succeeded`.
public struct PastSignin: Sendable, Equatable {
    /// When.
    public var at: Timestamp
    /// What it recorded; `nil` for a sign-in recorded before sign-in alerts.
    public var sighting: SigninSighting?

    /// Creates a past sign-in.
    public init(at: Timestamp, sighting: SigninSighting?) {
        self.at = at
        self.sighting = sighting
    }
}

/// A user's history as the judge reads it, summed up by the store from their newest sign-ins (so that a sign-in
/// reads one row, not one per past sign-in), with the newest sealed place and the key it is sealed under.
public struct RecentSignins: Sendable, Equatable {
    /// The sign-ins that recorded a sighting, the devices (newest first, at most the judge's bound; their
    /// `family` and `firstSeen` are not read) and the countries and regions (newest first, each pair once, at
    /// most the judge's bound); `lastLocated` is left to the caller, which opens ``newestSealed``.
    public var history: SigninHistory
    /// The newest sign-in with a sealed place.
    public var newestSealed: SealedSighting?
    /// The user's wrapped personal-data key (`authlog.user_keys`), when they have one.
    public var wrappedUserKey: [UInt8]?

    /// Creates the record.
    public init(
        history: SigninHistory = SigninHistory(),
        newestSealed: SealedSighting? = nil,
        wrappedUserKey: [UInt8]? = nil
    ) {
        self.history = history
        self.newestSealed = newestSealed
        self.wrappedUserKey = wrappedUserKey
    }

    /// The history of `signins` (newest first, as the store reads them), bounded by `devices` and `areas`: what
    /// every store answers, each in its own way. A sign-in from a device `disowned` up to then (the user said a
    /// sign-in from it was not them: ``AccountNotMeReported/disownedDeviceKeys``) counts for nothing: not its
    /// device, not its place, not its location; one after the report counts again. The history is judged even
    /// when nothing else is left in it. (The stores also leave those sign-ins out before their `limit`.)
    public static func summing(
        _ signins: [PastSignin],
        devices: Int,
        areas: Int,
        wrappedUserKey: [UInt8]?,
        disowned: [DisownedDevice] = []
    ) -> RecentSignins {
        var history = SigninHistory()
        history.disowned = !disowned.isEmpty
        var newestSealed: SealedSighting?
        for signin in signins {
            guard let sighting = signin.sighting, !DisownedDevice.leavesOut(signin, disowned) else { continue }
            history.signins += 1
            if !history.devices.contains(where: { $0.key == sighting.deviceKey }) && history.devices.count < devices {
                history.devices.append(
                    .init(key: sighting.deviceKey, family: "", firstSeen: signin.at, lastSeen: signin.at)
                )
            }
            if let country = sighting.country,
                !history.areas.contains(where: { $0.country == country && $0.region == sighting.region }),
                history.areas.count < areas
            {
                history.areas.append(.init(country: country, region: sighting.region, lastSeen: signin.at))
            }
            if newestSealed == nil, let sealed = sighting.sealedPlace {
                newestSealed = SealedSighting(at: signin.at, sealedPlace: sealed, country: sighting.country)
            }
        }
        return RecentSignins(history: history, newestSealed: newestSealed, wrappedUserKey: wrappedUserKey)
    }
}

/// A device the user disowned: the key a "not me" report named, and when it was made
/// (``AccountNotMeReported/disownedDeviceKeys``).
public struct DisownedDevice: Sendable, Equatable {
    /// The device's key.
    public var key: String
    /// When the report was made: sign-ins from the device up to then are not the user's.
    public var at: Timestamp

    /// Creates it.
    public init(key: String, at: Timestamp) {
        self.key = key
        self.at = at
    }

    /// Whether `signin` is one of `disowned`'s: from a disowned device, at or before its report.
    public static func leavesOut(_ signin: PastSignin, _ disowned: [DisownedDevice]) -> Bool {
        guard let key = signin.sighting?.deviceKey else { return false }
        return disowned.contains { $0.key == key && signin.at <= $0.at }
    }
}

/// The newest sign-in of a user that sealed its place.
public struct SealedSighting: Sendable, Equatable {
    /// When.
    public var at: Timestamp
    /// The sealed place (``SealedPlace``).
    public var sealedPlace: String
    /// The sign-in's country.
    public var country: String?

    /// Creates it.
    public init(at: Timestamp, sealedPlace: String, country: String?) {
        self.at = at
        self.sealedPlace = sealedPlace
        self.country = country
    }
}

/// A session's sign-in and what was flagged of it so far.
public struct SessionSignin: Sendable, Equatable {
    /// The session's `signin.succeeded`; nil when the log has none (an ingested session).
    public var signin: PastSignin?
    /// The kinds already flagged on the session (its sign-in and its refreshes; admitted ones only: `recorded`,
    /// `reauthenticated`), each flagged once per session.
    public var flaggedKinds: Set<SigninJudgement.Kind>
    /// The user's wrapped personal-data key.
    public var wrappedUserKey: [UInt8]?
    /// The client address the sign-in came from (its envelope's `ip`).
    public var address: IPAddress?

    /// Creates the record.
    public init(
        signin: PastSignin? = nil,
        flaggedKinds: Set<SigninJudgement.Kind> = [],
        wrappedUserKey: [UInt8]? = nil,
        address: IPAddress? = nil
    ) {
        self.address = address
        self.signin = signin
        self.flaggedKinds = flaggedKinds
        self.wrappedUserKey = wrappedUserKey
    }
}
