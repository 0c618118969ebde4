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

/// A user's recent sign-ins and the wrapped key their places are sealed under.
public struct RecentSignins: Sendable, Equatable {
    /// The newest successful sign-ins, newest first.
    public var signins: [PastSignin]
    /// The user's wrapped personal-data key (`authlog.user_keys`), when they have one.
    public var wrappedUserKey: [UInt8]?

    /// Creates the record.
    public init(signins: [PastSignin] = [], wrappedUserKey: [UInt8]? = nil) {
        self.signins = signins
        self.wrappedUserKey = wrappedUserKey
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
