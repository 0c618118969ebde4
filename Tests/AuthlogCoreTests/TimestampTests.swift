import AuthlogCore
import Foundation
import Testing

struct TimestampTests {
    @Test(arguments: [
        ("2026-11-21T13:06:14.123456Z", Int64(1_795_266_374_123_456)),
        ("2026-11-21T13:06:14.1234567Z", Int64(1_795_266_374_123_456)),
        ("2026-11-21 13:06:14.123456+00", Int64(1_795_266_374_123_456)),
        ("2026-11-21T22:06:14.123456+09:00", Int64(1_795_266_374_123_456)),
        ("2026-11-21T08:36:14.123456-0430", Int64(1_795_266_374_123_456)),
        ("2026-11-21", Int64(1_795_219_200_000_000)),
        ("1970-01-01T00:00:00Z", Int64(0)),
        ("1969-12-31T23:59:59.5Z", Int64(-500_000)),
        ("2024-02-29T00:00:00Z", Int64(1_709_164_800_000_000)),
    ])
    func parsesISO8601Exactly(text: String, micros: Int64) {
        #expect(Timestamp(iso8601: text)?.microsecondsSinceEpoch == micros)
    }

    @Test(arguments: [
        "2026-02-29", "2026-13-01", "2026-11-21T24:00:00Z", "2026-11-21T10:00:00+25:00", "yesterday", "2026-11-21T10",
    ])
    func refusesInvalidTimes(text: String) {
        #expect(Timestamp(iso8601: text) == nil)
    }

    @Test func printsUTCWithSixFractionalDigitsAndRoundTrips() {
        let time = Timestamp(microsecondsSinceEpoch: -1)
        #expect(time.description == "1969-12-31T23:59:59.999999Z")
        #expect(Timestamp(iso8601: time.description) == time)
        #expect(Timestamp(microsecondsSinceEpoch: 1_795_266_374_000_001).description == "2026-11-21T13:06:14.000001Z")
        #expect(Timestamp(microsecondsSinceEpoch: 1_795_266_374_000_001).dayString == "2026-11-21")
    }

    @Test func version7UUIDsAreTimeOrdered() {
        let early = UUID.version7(at: Timestamp(microsecondsSinceEpoch: 1_000_000_000))
        let late = UUID.version7(at: Timestamp(microsecondsSinceEpoch: 2_000_000_000))
        #expect(early.lowercased < late.lowercased)
        #expect(early.lowercased.dropFirst(14).first == "7")
    }
}
