#if canImport(Glibc)
import Glibc
#endif

/// Distances on the earth and the speed two sign-ins' places imply.
public enum TravelSpeed {
    /// The mean earth radius (IUGG), in kilometres.
    static let earthRadiusKilometres = 6_371.0088

    /// The great-circle distance between two points (the haversine formula), in kilometres.
    public static func kilometres(from start: Place.Location, to end: Place.Location) -> Double {
        func radians(_ degrees: Double) -> Double { degrees * .pi / 180 }
        let latitudeDelta = radians(end.latitude - start.latitude)
        let longitudeDelta = radians(end.longitude - start.longitude)
        let haversine =
            pow(sin(latitudeDelta / 2), 2) + cos(radians(start.latitude)) * cos(radians(end.latitude))
            * pow(sin(longitudeDelta / 2), 2)
        return 2 * Self.earthRadiusKilometres * asin(min(1, sqrt(haversine)))
    }

    /// The slowest speed, in km/h, at which one person could have been at both places: the distance less both
    /// places' accuracy radii (each address may lie anywhere within its radius), over the time between them.
    /// 0 when the radii overlap; infinite when the places are apart and no time passed.
    public static func kilometresPerHour(
        from start: Place.Location,
        to end: Place.Location,
        seconds: Double
    ) -> Double {
        let apart =
            Self.kilometres(from: start, to: end) - (start.accuracyKilometres ?? 0) - (end.accuracyKilometres ?? 0)
        guard apart > 0 else { return 0 }
        let hours = abs(seconds) / 3_600
        return hours > 0 ? apart / hours : .infinity
    }
}
