extension ServerConfiguration {
    /// The `places` section: the operator's MaxMind DB files (docs/operations.md says where to get them). Nothing
    /// is fetched at run time.
    public struct PlacesSettings: Codable, Sendable {
        /// A city (or country) file: GeoLite2-City, GeoIP2-City, DB-IP City Lite. Unset: places are off.
        public var cityDatabase: String?
        /// An ASN file (GeoLite2-ASN, DB-IP ASN Lite), for the hosting-network judgement.
        public var asnDatabase: String?
        /// How often the files are checked for a replacement, in seconds (default 300; SIGHUP reloads at once).
        public var reloadIntervalSeconds: Int?

        /// An empty section.
        public init() {}
    }

    /// The `alerts` section: how sign-ins are judged and what each judgement leads to (docs/signin.md).
    public struct AlertSettings: Codable, Sendable {
        /// `false` judges nothing and records no device or place (default `true`).
        public var enabled: Bool?
        /// Faster than this between two located sign-ins is impossible travel, km/h (default 1,000).
        public var maximumSpeedKmh: Double?
        /// The most devices kept as known per user, the least recently seen first out (default 20).
        public var knownDevices: Int?
        /// The most countries and regions kept as known per user (default 50).
        public var knownAreas: Int?
        /// How many of the user's newest sign-ins make their history (default 50, at most 200).
        public var historySignins: Int?
        /// The autonomous systems counted as hosting networks, replacing the built-in list.
        public var hostingNetworks: [UInt32]?
        /// The policy of each judgement: `record` (default), `reauthenticate` or `deny`.
        public var policies: Policies?

        /// An empty section.
        public init() {}

        /// One policy per judgement.
        public struct Policies: Codable, Sendable {
            /// A device the user never signed in from.
            public var newDevice: String?
            /// A country the user never signed in from.
            public var newCountry: String?
            /// A new region of a known country.
            public var newRegion: String?
            /// Faster than `maximum_speed_kmh` from the last located sign-in.
            public var impossibleTravel: String?
            /// From a hosting network.
            public var hostingNetwork: String?

            /// An empty section.
            public init() {}
        }
    }
}

extension ServerConfiguration {
    /// Whether sign-ins are placed (alerts on, a city file) but no `data_key` is configured: the city and the
    /// coarse location are personal data, kept only sealed under the user's key, so without a data key they are
    /// not kept and `impossible_travel` is never judged (countries and regions still are). `serve` warns.
    public var placesKeepNoLocation: Bool {
        self.alerts?.enabled != false && self.places?.cityDatabase != nil && self.dataKey == nil
    }
}
