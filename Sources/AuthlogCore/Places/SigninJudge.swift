/// What the server knows of one sign-in (or refresh) when it judges it.
public struct SigninFacts: Sendable, Equatable {
    /// The device's key: the keyed hash of AuthlogClient's device id, or of the user agent's family and the
    /// client's network.
    public var deviceKey: String
    /// The user agent's family (``UserAgentFamily``).
    public var family: String
    /// Where the city file places the client's address (nil: no file, or no record).
    public var place: Place?
    /// The client's autonomous system, when an ASN file is given.
    public var network: AutonomousSystem?
    /// When.
    public var at: Timestamp

    /// Creates the facts.
    public init(deviceKey: String, family: String, place: Place? = nil, network: AutonomousSystem? = nil, at: Timestamp)
    {
        self.deviceKey = deviceKey
        self.family = family
        self.place = place
        self.network = network
        self.at = at
    }
}

/// One finding about a sign-in that is unusual for its user.
public struct SigninJudgement: Sendable, Equatable, Codable {
    /// What is unusual.
    public enum Kind: String, Sendable, CaseIterable, Codable {
        /// A device the user never signed in from (or one dropped from the bounded list long ago).
        case newDevice = "new_device"
        /// A country the user never signed in from.
        case newCountry = "new_country"
        /// A known country, a region of it never seen.
        case newRegion = "new_region"
        /// Faster than ``SigninJudge/Settings/maximumKilometresPerHour`` from the last located sign-in, with
        /// both places' accuracy allowed for.
        case impossibleTravel = "impossible_travel"
        /// From an autonomous system of a hosting or cloud provider (a VPN or a bot more often than a person).
        case hostingNetwork = "hosting_network"
    }

    public var kind: Kind
    /// For impossible travel: the great-circle distance, less both accuracy radii, in whole kilometres.
    public var kilometres: Int?
    /// For impossible travel: the time since the last located sign-in, in seconds.
    public var seconds: Int64?
    /// For impossible travel: the speed it implies, in whole km/h (nil when no time passed).
    public var kilometresPerHour: Int?
    /// For a hosting network: its number.
    public var autonomousSystem: UInt32?

    /// Creates a judgement.
    public init(
        kind: Kind,
        kilometres: Int? = nil,
        seconds: Int64? = nil,
        kilometresPerHour: Int? = nil,
        autonomousSystem: UInt32? = nil
    ) {
        self.kind = kind
        self.kilometres = kilometres
        self.seconds = seconds
        self.kilometresPerHour = kilometresPerHour
        self.autonomousSystem = autonomousSystem
    }
}

/// Judges a sign-in against the user's history: a new device, a new country or region, impossible travel, a
/// hosting network. A user with no history gets no judgement on their first sign-in: there is nothing to
/// compare with, and every first sign-in would otherwise alert.
public struct SigninJudge: Sendable {
    /// The judge's settings (docs/configuration.md, `alerts`).
    public struct Settings: Sendable, Equatable {
        /// Faster than this between two located sign-ins is impossible travel (default 1,000 km/h: an airliner).
        public var maximumKilometresPerHour: Double = 1_000
        /// The most devices kept per user, the least recently seen dropped first (default 20).
        public var maximumDevices = 20
        /// The most countries and regions kept per user (default 50).
        public var maximumAreas = 50
        /// The autonomous systems counted as hosting networks (default ``defaultHostingNetworks``).
        public var hostingNetworks: Set<UInt32> = SigninJudge.defaultHostingNetworks

        /// The defaults.
        public init() {}
    }

    /// Large cloud and hosting providers' autonomous systems: Amazon (16509, 14618), Google Cloud (396982),
    /// Microsoft Azure (8075), DigitalOcean (14061), OVH (16276), Hetzner (24940), Linode/Akamai (63949), Vultr
    /// (20473), Oracle Cloud (31898), Alibaba Cloud (45102), Tencent Cloud (132203), Scaleway (12876), Contabo
    /// (51167), Leaseweb (60781), M247 (9009, which many VPNs use).
    public static let defaultHostingNetworks: Set<UInt32> = [
        16509, 14618, 396982, 8075, 14061, 16276, 24940, 63949, 20473, 31898, 45102, 132203, 12876, 51167, 60781, 9009,
    ]

    public var settings: Settings

    /// Creates a judge.
    public init(settings: Settings = Settings()) { self.settings = settings }

    /// The judgements of a sign-in with `facts` for a user with `history`, in ``SigninJudgement/Kind`` order.
    public func judge(_ facts: SigninFacts, history: SigninHistory) -> [SigninJudgement] {
        guard history.signins > 0 || history.disowned else { return [] }
        var judgements: [SigninJudgement] = []
        if !history.devices.contains(where: { $0.key == facts.deviceKey }) {
            judgements.append(SigninJudgement(kind: .newDevice))
        }
        if let country = facts.place?.country, !history.areas.isEmpty || history.disowned {
            if !history.areas.contains(where: { $0.country == country }) {
                judgements.append(SigninJudgement(kind: .newCountry))
            } else if let region = facts.place?.region,
                !history.areas.contains(where: { $0.country == country && $0.region == region })
            {
                judgements.append(SigninJudgement(kind: .newRegion))
            }
        }
        if let location = facts.place?.location, let last = history.lastLocated,
            let travel = self.travel(
                from: last,
                to: location,
                at: facts.at
            )
        {
            judgements.append(travel)
        }
        if let network = facts.network, self.settings.hostingNetworks.contains(network.number) {
            judgements.append(SigninJudgement(kind: .hostingNetwork, autonomousSystem: network.number))
        }
        return judgements
    }

    /// Impossible travel from the last located sign-in to `location` at `at`, if it is.
    private func travel(
        from last: SigninHistory.Located,
        to location: Place.Location,
        at: Timestamp
    ) -> SigninJudgement? {
        // Two sign-ins judged out of order (a late event, clocks of two processes apart) are as far apart in time
        // either way.
        let seconds = abs((at.microsecondsSinceEpoch - last.at.microsecondsSinceEpoch) / 1_000_000)
        let speed = TravelSpeed.kilometresPerHour(from: last.location, to: location, seconds: Double(seconds))
        guard speed > self.settings.maximumKilometresPerHour else { return nil }
        let apart =
            TravelSpeed.kilometres(from: last.location, to: location) - (last.location.accuracyKilometres ?? 0)
            - (location.accuracyKilometres ?? 0)
        return SigninJudgement(
            kind: .impossibleTravel,
            kilometres: Int(apart.rounded()),
            seconds: seconds,
            kilometresPerHour: speed.isFinite ? Int(speed.rounded()) : nil
        )
    }
}
