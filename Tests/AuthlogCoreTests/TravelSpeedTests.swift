import AuthlogCore
import Testing

/// The speed two sign-ins' places imply, allowing for both lookups' accuracy.
struct TravelSpeedTests {
    static let seoul = Place.Location(latitude: 37.5665, longitude: 126.9780, accuracyKilometres: 20)
    static let tokyo = Place.Location(latitude: 35.6895, longitude: 139.6917, accuracyKilometres: 10)

    @Test func seoulToTokyoIsImpossibleInThirtyMinutesAndPossibleInThree() {
        let kilometres = TravelSpeed.kilometres(from: Self.seoul, to: Self.tokyo)
        #expect(abs(kilometres - 1_152.6) < 0.1, "the great-circle distance: \(kilometres)")
        let halfHour = TravelSpeed.kilometresPerHour(from: Self.seoul, to: Self.tokyo, seconds: 1_800)
        let threeHours = TravelSpeed.kilometresPerHour(from: Self.seoul, to: Self.tokyo, seconds: 10_800)
        #expect(halfHour > 1_000 && abs(halfHour - (kilometres - 30) * 2) < 0.001, "\(halfHour)")
        #expect(threeHours < 1_000 && abs(threeHours - (kilometres - 30) / 3) < 0.001, "\(threeHours)")
    }

    @Test func overlappingRadiiImplyNoTravelAndApartWithoutTimeIsInfinite() {
        let wide = Place.Location(latitude: 37.5665, longitude: 126.9780, accuracyKilometres: 1_200)
        #expect(TravelSpeed.kilometresPerHour(from: wide, to: Self.tokyo, seconds: 1) == 0, "within 1,200 km")
        #expect(TravelSpeed.kilometresPerHour(from: Self.seoul, to: Self.tokyo, seconds: 0) == .infinity)
        #expect(TravelSpeed.kilometresPerHour(from: Self.seoul, to: Self.seoul, seconds: 0) == 0)
        #expect(TravelSpeed.kilometres(from: Self.seoul, to: Self.seoul) == 0)
        let antipode = Place.Location(latitude: -37.5665, longitude: -53.022)
        #expect(abs(TravelSpeed.kilometres(from: Self.seoul, to: antipode) - 20_015) < 2, "half the circumference")
    }
}
