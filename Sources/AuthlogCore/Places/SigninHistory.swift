/// What authlog keeps of a user's past sign-ins to judge the next one (``SigninJudge``): the devices and the
/// places seen, and the last sign-in whose place had a location. Bounded: at most ``SigninJudge/Settings``'s
/// device and place counts, the least recently seen dropped first.
public struct SigninHistory: Sendable, Equatable {
    /// One device the user signed in from.
    public struct Device: Sendable, Equatable {
        /// The keyed hash (hex) of the device id AuthlogClient sends, or of the user agent's family and the
        /// network when there is none.
        public var key: String
        /// The user agent's family when it was last seen (``UserAgentFamily``).
        public var family: String
        public var firstSeen: Timestamp
        public var lastSeen: Timestamp

        /// Creates a device.
        public init(key: String, family: String, firstSeen: Timestamp, lastSeen: Timestamp) {
            self.key = key
            self.family = family
            self.firstSeen = firstSeen
            self.lastSeen = lastSeen
        }
    }

    /// One country, or one region of a country, the user signed in from.
    public struct Area: Sendable, Equatable {
        /// The country's ISO code.
        public var country: String
        /// The region (nil: the country as a whole).
        public var region: String?
        public var lastSeen: Timestamp

        /// Creates an area.
        public init(country: String, region: String?, lastSeen: Timestamp) {
            self.country = country
            self.region = region
            self.lastSeen = lastSeen
        }
    }

    /// The last sign-in with a located place: where and when.
    public struct Located: Sendable, Equatable {
        public var location: Place.Location
        public var country: String?
        public var at: Timestamp

        /// Creates it.
        public init(location: Place.Location, country: String?, at: Timestamp) {
            self.location = location
            self.country = country
            self.at = at
        }
    }

    /// How many sign-ins were judged so far (the first has nothing to compare with: no alert).
    public var signins: Int = 0
    /// The known devices, in no particular order.
    public var devices: [Device] = []
    /// The countries and regions seen.
    public var areas: [Area] = []
    /// The last located sign-in.
    public var lastLocated: Located?
    /// Whether the user disowned a device (said a sign-in from it was not them): its sign-ins are left out, and
    /// the history is judged even when nothing is left in it (a device or a country is then new), unlike a
    /// user's first sign-in.
    public var disowned = false

    /// An empty history: a user who never signed in.
    public init() {}

    /// The history after a sign-in with these facts, bounded by `settings`.
    public func recording(_ facts: SigninFacts, settings: SigninJudge.Settings) -> SigninHistory {
        var next = self
        next.signins += 1
        if let index = next.devices.firstIndex(where: { $0.key == facts.deviceKey }) {
            next.devices[index].lastSeen = max(next.devices[index].lastSeen, facts.at)
            next.devices[index].family = facts.family
        } else {
            next.devices.append(
                Device(key: facts.deviceKey, family: facts.family, firstSeen: facts.at, lastSeen: facts.at)
            )
        }
        if let country = facts.place?.country {
            next.see(country: country, region: nil, at: facts.at)
            if let region = facts.place?.region { next.see(country: country, region: region, at: facts.at) }
        }
        if let location = facts.place?.location, facts.at >= (next.lastLocated?.at ?? facts.at) {
            next.lastLocated = Located(location: location, country: facts.place?.country, at: facts.at)
        }
        next.devices = Self.newest(next.devices, keeping: settings.maximumDevices) { $0.lastSeen }
        next.areas = Self.newest(next.areas, keeping: settings.maximumAreas) { $0.lastSeen }
        return next
    }

    /// Marks a country (`region` nil) or one of its regions as seen at `at`.
    private mutating func see(country: String, region: String?, at: Timestamp) {
        if let index = self.areas.firstIndex(where: { $0.country == country && $0.region == region }) {
            self.areas[index].lastSeen = max(self.areas[index].lastSeen, at)
        } else {
            self.areas.append(Area(country: country, region: region, lastSeen: at))
        }
    }

    /// At most `count` elements, those seen last.
    private static func newest<Element>(
        _ elements: [Element],
        keeping count: Int,
        by seen: (Element) -> Timestamp
    ) -> [Element] {
        guard elements.count > count else { return elements }
        return Array(elements.sorted { seen($0) > seen($1) }.prefix(count))
    }
}
