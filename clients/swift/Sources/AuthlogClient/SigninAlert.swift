/// authlog judged a sign-in (or a refresh) unusual for its user, let it through and recorded why, as a
/// `signin.flagged` event: the token answer's `signin_alert`.
///
/// The client reports it on ``AuthlogClient/sessionEvents()`` as ``SessionEvent/unusualSignin(_:)``, and on
/// ``SigninResult/signinAlert``. Show the user what was unusual and offer "this was not me": pass ``eventID`` to
/// ``AuthlogClient/reportNotMe(eventID:)``, which ends every session of theirs.
public struct SigninAlert: Sendable, Hashable, CustomStringConvertible {
    /// The kind of one of authlog's judgements, as authlog spells it (`new_device`, …).
    ///
    /// A kind this version of the client does not know is kept as it came: compare with the constants below and
    /// show ``rawValue`` (or a generic text) for the others, in a `switch` with a `default`.
    public struct Judgement: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The kind as authlog spells it.
        public let rawValue: String

        /// Creates a kind.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// A device the user never signed in from: an unknown device id (or, for a client that sends none, user
        /// agent and network).
        public static let newDevice = Judgement(rawValue: "new_device")
        /// A country the user never signed in from.
        public static let newCountry = Judgement(rawValue: "new_country")
        /// A region never seen, in a country the user signed in from before.
        public static let newRegion = Judgement(rawValue: "new_region")
        /// Too far from the user's last located sign-in for the time between them.
        public static let impossibleTravel = Judgement(rawValue: "impossible_travel")
        /// From a hosting or cloud provider's network (a VPN or a bot more often than a person).
        public static let hostingNetwork = Judgement(rawValue: "hosting_network")

        /// The kind as authlog spells it.
        public var description: String { self.rawValue }
    }

    /// The id of the `signin.flagged` event, which is also an entry of the user's activity: what
    /// ``AuthlogClient/reportNotMe(eventID:)`` takes.
    public let eventID: String
    /// What authlog found unusual, at least one kind, in authlog's order.
    public let judgements: [Judgement]

    /// Creates an alert.
    public init(eventID: String, judgements: [Judgement]) {
        self.eventID = eventID
        self.judgements = judgements
    }

    /// The event id and the kinds.
    public var description: String {
        "SigninAlert(\(self.eventID): \(self.judgements.map(\.rawValue).joined(separator: ", ")))"
    }
}
