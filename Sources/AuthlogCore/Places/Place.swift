/// Where an address is, as a MaxMind DB city file (GeoLite2-City, GeoIP2-City, DB-IP City Lite) places it.
/// Each part is absent when the file does not say it: many networks have a country and no city.
public struct Place: Sendable, Equatable {
    /// The country's ISO 3166-1 alpha-2 code (`KR`).
    public var country: String?
    /// The first subdivision: its ISO 3166-2 code without the country (`11`), or its English name when the file
    /// has no code (DB-IP Lite).
    public var region: String?
    /// The city's English name.
    public var city: String?
    /// The coarse location and how far off it may be.
    public var location: Location?

    /// Creates a place.
    public init(country: String? = nil, region: String? = nil, city: String? = nil, location: Location? = nil) {
        self.country = country
        self.region = region
        self.city = city
        self.location = location
    }

    /// A point on the earth, in degrees, with the radius around it where the address may be.
    public struct Location: Sendable, Equatable {
        /// Degrees north (negative: south).
        public var latitude: Double
        /// Degrees east (negative: west).
        public var longitude: Double
        /// The file's `accuracy_radius` in kilometres (nil when the file gives none).
        public var accuracyKilometres: Double?

        /// Creates a location.
        public init(latitude: Double, longitude: Double, accuracyKilometres: Double? = nil) {
            self.latitude = latitude
            self.longitude = longitude
            self.accuracyKilometres = accuracyKilometres
        }
    }
}

/// The network an address belongs to, as a MaxMind DB ASN file (GeoLite2-ASN, DB-IP ASN Lite) names it.
public struct AutonomousSystem: Sendable, Equatable {
    /// The autonomous system number.
    public var number: UInt32
    /// Its organisation's name, when the file gives one.
    public var organization: String?

    /// Creates an autonomous system.
    public init(number: UInt32, organization: String? = nil) {
        self.number = number
        self.organization = organization
    }
}
