/// The personal part of a sign-in's place: the city and the coarse location, as sealed under the user's key into
/// `signin.succeeded`'s `sealed_place` (its canonical JSON: `city`, `latitude`, `longitude`, `accuracy_km`).
public struct SealedPlace: Sendable, Equatable {
    /// The city's name.
    public var city: String?
    /// The coarse location.
    public var location: Place.Location?

    /// Creates it.
    public init(city: String?, location: Place.Location?) {
        self.city = city
        self.location = location
    }

    /// The JSON sealed; nil when there is nothing to seal.
    public var json: JSONValue? {
        var members: [(String, JSONValue)] = []
        if let city = self.city { members.append(("city", .string(city))) }
        if let location = self.location, location.latitude.isFinite, location.longitude.isFinite {
            members.append(("latitude", .number(String(location.latitude))))
            members.append(("longitude", .number(String(location.longitude))))
            if let radius = location.accuracyKilometres, radius.isFinite {
                members.append(("accuracy_km", .number(String(radius))))
            }
        }
        return members.isEmpty ? nil : .object(members)
    }

    /// The place in opened JSON; nil when it is not one.
    public init?(json: JSONValue) {
        guard case .object = json else { return nil }
        self.city = json["city"]?.stringValue
        if let latitude = Self.number(json["latitude"]), let longitude = Self.number(json["longitude"]),
            (-90...90).contains(latitude), (-180...180).contains(longitude)
        {
            self.location = Place.Location(
                latitude: latitude,
                longitude: longitude,
                accuracyKilometres: Self.number(json["accuracy_km"])
            )
        } else {
            self.location = nil
        }
    }

    /// A JSON number's value.
    private static func number(_ value: JSONValue?) -> Double? {
        guard case .number(let text) = value else { return nil }
        return Double(text)
    }
}
