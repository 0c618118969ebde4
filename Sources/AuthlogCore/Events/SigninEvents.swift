public import Foundation

/// A provider proof was verified and a session started (`signin.succeeded`, stream `session-<id>`).
public struct SigninSucceeded: EventPayload {
    /// The stored type name of this payload's events.
    public static let eventType = EventType.signinSucceeded
    /// `id_token`, `authorization_code`, `access_token` or `development`.
    public var method: String
    /// Hex SHA-256 of the provider's subject, so the raw subject is never stored.
    public var subjectHash: String
    /// When the user authenticated at the provider, if it said.
    public var authTime: Timestamp?
    /// How the nonce was checked: `matched`, `not_supported` or `absent`.
    public var nonceCheck: String?
    /// Whether this sign-in registered the user.
    public var isNewUser: Bool
    /// The provider behind a broker such as Firebase (`apple.com`, `github.com`).
    public var upstreamProvider: String?
    /// Whether the app asked for a "remember me" session; absent in events before it was recorded, which
    /// count as "remember me" (the default).
    public var rememberMe: Bool?
    /// The device's key (``SigninFacts/deviceKey``), absent in events before sign-in alerts.
    public var deviceKey: String?
    /// The user agent's family (``UserAgentFamily``).
    public var deviceFamily: String?
    /// The country the operator's MaxMind DB file places the address in (ISO 3166-1 alpha-2).
    public var country: String?
    /// Its first subdivision.
    public var region: String?
    /// The city and the coarse location, sealed under the user's key (``SealedPlace``): deleting the account
    /// shreds them. Absent without a data key or without a location.
    public var sealedPlace: String?
    /// Whether `device_key` is of AuthlogClient's device id (`true`), not of the user agent and the network.
    public var deviceIdSent: Bool?

    /// Creates the payload.
    public init(
        method: String,
        subjectHash: String,
        authTime: Timestamp? = nil,
        nonceCheck: String? = nil,
        isNewUser: Bool,
        upstreamProvider: String? = nil,
        rememberMe: Bool? = nil,
        sighting: SigninSighting? = nil
    ) {
        self.rememberMe = rememberMe
        self.deviceKey = sighting?.deviceKey
        self.deviceFamily = sighting?.deviceFamily
        self.country = sighting?.country
        self.region = sighting?.region
        self.sealedPlace = sighting?.sealedPlace
        self.deviceIdSent = sighting.map(\.byDeviceID)
        self.method = method
        self.subjectHash = subjectHash
        self.authTime = authTime
        self.nonceCheck = nonceCheck
        self.isNewUser = isNewUser
        self.upstreamProvider = upstreamProvider
    }
}

/// A sign-in attempt failed verification (`signin.failed`, stream `signin-<provider>`).
public struct SigninFailed: EventPayload {
    /// The stored type name of this payload's events.
    public static let eventType = EventType.signinFailed
    /// The machine-readable reason, the same as the envelope's `reason`.
    public var reason: String
    /// The proof that was presented, if known.
    public var method: String?
    /// The signed-in user's action the proof was for (re-authentication, linking); absent for a sign-in.
    public var action: AccountAction?
    /// The keyed hash of the provider subject, present only when the provider vouched for the subject (the
    /// proof's signature, issuer and audience verified) and a later check failed, or when the identity is
    /// locked. Such failures count toward the identity's lockout (`identity.locked`); a proof that does not
    /// verify never names the subject it claims.
    public var subjectHash: String?

    /// Creates the payload.
    public init(reason: String, method: String? = nil, action: AccountAction? = nil, subjectHash: String? = nil) {
        self.reason = reason
        self.method = method
        self.action = action
        self.subjectHash = subjectHash
    }
}

/// The first sign-in of an identity created a user (`user.registered`, stream `user-<id>`).
public struct UserRegistered: EventPayload {
    /// The stored type name of this payload's events.
    public static let eventType = EventType.userRegistered
    /// The provider of the identity.
    public var provider: String
    /// Hex SHA-256 of the provider's subject.
    public var subjectHash: String
    /// Personal display data (name, verified email) sealed with the user's own key (AES-256-GCM, base64url),
    /// so that destroying that key erases it while the chain still verifies.
    public var sealedProfile: String?

    /// Creates the payload.
    public init(provider: String, subjectHash: String, sealedProfile: String? = nil) {
        self.provider = provider
        self.subjectHash = subjectHash
        self.sealedProfile = sealedProfile
    }
}

/// A provider identity was attached to a user (`identity.linked`).
public struct IdentityLinked: EventPayload {
    /// The stored type name of this payload's events.
    public static let eventType = EventType.identityLinked
    /// The provider of the identity.
    public var provider: String
    /// Hex SHA-256 of the provider's subject.
    public var subjectHash: String
    /// The policy that allowed the link (for example `reauthenticated`).
    public var policy: String?

    /// Creates the payload.
    public init(provider: String, subjectHash: String, policy: String? = nil) {
        self.provider = provider
        self.subjectHash = subjectHash
        self.policy = policy
    }
}

/// A provider identity was removed from a user (`identity.unlinked`).
public struct IdentityUnlinked: EventPayload {
    /// The stored type name of this payload's events.
    public static let eventType = EventType.identityUnlinked
    /// The provider of the identity.
    public var provider: String
    /// Hex SHA-256 of the provider's subject.
    public var subjectHash: String

    /// Creates the payload.
    public init(provider: String, subjectHash: String) {
        self.provider = provider
        self.subjectHash = subjectHash
    }
}

/// A sign-in judged unusual for its user (`signin.flagged`, stream `user-<id>`): a new device, a new country or
/// region, impossible travel, a hosting network (``SigninJudge``). Recorded in the command of the sign-in it
/// judges, which it names, with the session signed in or refreshed; its envelope's `reason` is
/// ``reason(for:)``, its outcome that of the sign-in (failure when the policy refused it).
public struct SigninFlagged: EventPayload {
    /// The stored type name of this payload's events.
    public static let eventType = EventType.signinFlagged
    /// The `event_id` of the `signin.succeeded` (or, when refused, `signin.failed`) judged.
    public var judgedEventID: String
    /// The findings, in ``SigninJudgement/Kind`` order.
    public var judgements: [SigninJudgement]
    /// What was done.
    public var decision: SigninAlertDecision
    /// The country and region of the sign-in, when the city file gives them (to tell the user where).
    public var country: String?
    /// The region.
    public var region: String?
    /// The device's user-agent family.
    public var deviceFamily: String?

    /// Creates the payload.
    public init(
        judgedEventID: UUID,
        judgements: [SigninJudgement],
        decision: SigninAlertDecision,
        country: String? = nil,
        region: String? = nil,
        deviceFamily: String? = nil
    ) {
        self.judgedEventID = judgedEventID.lowercased
        self.judgements = judgements
        self.decision = decision
        self.country = country
        self.region = region
        self.deviceFamily = deviceFamily
    }

    /// The envelope `reason` of a `signin.flagged` with `judgements`: impossible travel when it is one of them
    /// (the strongest sign of a stolen account), else the first kind.
    public static func reason(for judgements: [SigninJudgement]) -> String {
        let kinds = judgements.map(\.kind)
        return (kinds.contains(.impossibleTravel) ? .impossibleTravel : kinds.first ?? .newDevice).rawValue
    }
}
