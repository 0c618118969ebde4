public import Foundation

/// An instant in UTC with microsecond precision, PostgreSQL's `timestamptz` resolution.
///
/// Held as whole microseconds since 1970-01-01T00:00:00Z so that the value stored, hashed and read back
/// is exactly the same number.
public struct Timestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Microseconds since the Unix epoch.
    public let microsecondsSinceEpoch: Int64

    /// Creates a timestamp from microseconds since the Unix epoch.
    public init(microsecondsSinceEpoch: Int64) {
        self.microsecondsSinceEpoch = microsecondsSinceEpoch
    }

    /// Creates a timestamp from a `Date`, truncated to the microsecond (and held within Int64's range).
    public init(_ date: Date) {
        let micros = (date.timeIntervalSince1970 * 1_000_000).rounded(.down)
        guard micros.isFinite else {
            self.microsecondsSinceEpoch = micros > 0 ? .max : .min
            return
        }
        self.microsecondsSinceEpoch = Int64(max(min(micros, 9.2e18), -9.2e18))
    }

    /// The current time.
    public static func now() -> Timestamp { Timestamp(Date()) }

    /// This instant moved by `seconds`, saturating at the ends of the representable range instead of
    /// overflowing (no value, however hostile, can trap here).
    public func adding(seconds: Int64) -> Timestamp {
        let (micros, overflowed) = seconds.multipliedReportingOverflow(by: 1_000_000)
        let (sum, sumOverflowed) = self.microsecondsSinceEpoch.addingReportingOverflow(micros)
        guard !overflowed, !sumOverflowed else { return Timestamp(microsecondsSinceEpoch: seconds < 0 ? .min : .max) }
        return Timestamp(microsecondsSinceEpoch: sum)
    }

    /// The UTC calendar day, as days since the Unix epoch.
    public var dayNumber: Int64 {
        let (quotient, remainder) = self.microsecondsSinceEpoch.quotientAndRemainder(dividingBy: 86_400_000_000)
        return remainder < 0 ? quotient - 1 : quotient
    }

    /// The UTC calendar day as `YYYY-MM-DD`.
    public var dayString: String {
        let civil = CivilDate(daysSinceEpoch: self.dayNumber)
        return civil.description
    }

    /// ISO 8601 in UTC with six fractional digits, such as `2026-11-21T13:06:14.123456Z`.
    public var description: String {
        let day = self.dayNumber
        let civil = CivilDate(daysSinceEpoch: day)
        var micros = self.microsecondsSinceEpoch - day * 86_400_000_000
        let hour = micros / 3_600_000_000
        micros -= hour * 3_600_000_000
        let minute = micros / 60_000_000
        micros -= minute * 60_000_000
        let second = micros / 1_000_000
        micros -= second * 1_000_000
        guard (0...9999).contains(civil.year) else {
            return civil.description + "T" + Self.pad(hour, 2) + ":" + Self.pad(minute, 2) + ":" + Self.pad(second, 2)
                + "." + Self.pad(micros, 6) + "Z"
        }
        var bytes = [UInt8](repeating: 0, count: 27)
        func put(_ value: Int64, _ width: Int, at offset: Int) {
            var rest = value
            for position in stride(from: offset + width - 1, through: offset, by: -1) {
                bytes[position] = UInt8(truncatingIfNeeded: 0x30 + rest % 10)
                rest /= 10
            }
        }
        put(civil.year, 4, at: 0)
        put(civil.month, 2, at: 5)
        put(civil.day, 2, at: 8)
        put(hour, 2, at: 11)
        put(minute, 2, at: 14)
        put(second, 2, at: 17)
        put(micros, 6, at: 20)
        for (offset, character) in [(4, "-"), (7, "-"), (10, "T"), (13, ":"), (16, ":"), (19, "."), (26, "Z")]
            as [(Int, Unicode.Scalar)]
        {
            bytes[offset] = UInt8(ascii: character)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.microsecondsSinceEpoch < rhs.microsecondsSinceEpoch
    }

    static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}

extension Timestamp: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = Timestamp(iso8601: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an ISO 8601 timestamp")
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(self.description)
    }
}
