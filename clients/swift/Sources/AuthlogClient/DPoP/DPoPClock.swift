import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How far each server's clock is from this device's, from the `Date` of its answers, for the `iat` of DPoP proofs:
/// a server accepts a proof only within a minute behind and 15 seconds ahead of its own clock (authlog's defaults),
/// and a device whose clock is off by more could otherwise make no proof it accepts. An offset under
/// ``threshold`` is taken as none (the `Date` has whole seconds and the answer took time to come), and one over
/// ``largest`` is ignored as a broken header.
///
/// `@unchecked Sendable`: `offsets` is read and written only while `lock` is held.
final class DPoPClock: @unchecked Sendable {
    /// The smallest offset acted on.
    static let threshold: TimeInterval = 5
    /// The largest offset believed: a year.
    static let largest: TimeInterval = 366 * 86_400
    /// The most origins remembered; past it the clock starts again (an app talks to a few servers).
    private static let capacity = 64

    private let lock = NSLock()
    private var offsets: [String: TimeInterval] = [:]
    /// This device's clock.
    private let local: @Sendable () -> Date

    /// A clock over `local` (the device's own by default).
    init(local: @escaping @Sendable () -> Date = { Date() }) {
        self.local = local
    }

    /// The time for a proof to `target`: the device's clock moved by what `target`'s server last showed.
    func now(for target: DPoPTarget) -> Date {
        let offset = self.offset(for: target)
        return self.local().addingTimeInterval(offset)
    }

    /// How far `target`'s server's clock was ahead of this device's (negative: behind) at its last answer; 0 under
    /// ``threshold``.
    func offset(for target: DPoPTarget) -> TimeInterval {
        self.lock.withLock { self.offsets[target.origin] ?? 0 }
    }

    /// Keeps the offset the `Date` of `response` shows, for the server that answered (at `url`, unless the answer
    /// names another after a redirect). An answer without a readable `Date` changes nothing.
    func record(_ response: HTTPURLResponse, for url: URL?) {
        guard let value = response.value(forHTTPHeaderField: "Date"), let served = Self.httpDate(value),
            let answered = response.url ?? url, let target = DPoPTarget(answered)
        else { return }
        // The server wrote whole seconds: its clock read somewhere in the second after `served`.
        let offset = served.addingTimeInterval(0.5).timeIntervalSince(self.local())
        guard abs(offset) <= Self.largest else { return }
        self.lock.withLock {
            if self.offsets.count >= Self.capacity, self.offsets[target.origin] == nil { self.offsets.removeAll() }
            self.offsets[target.origin] = abs(offset) < Self.threshold ? nil : offset
        }
    }

    /// An HTTP date in RFC 9110's preferred form (`Sun, 06 Nov 1994 08:49:37 GMT`); nil for anything else.
    static func httpDate(_ text: String) -> Date? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[0].count == 4, parts[0].hasSuffix(","), parts[5] == "GMT",
            let day = Int(parts[1]), parts[1].count == 2, let year = Int(parts[3]), parts[3].count == 4,
            let month = Self.months.firstIndex(of: String(parts[2]))
        else { return nil }
        let time = parts[4].split(separator: ":")
        guard time.count == 3, time.allSatisfy({ $0.count == 2 }), let hour = Int(time[0]), let minute = Int(time[1]),
            let second = Int(time[2]), (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second),
            (1...31).contains(day)
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        guard let utc = TimeZone(identifier: "UTC") else { return nil }
        calendar.timeZone = utc
        let components = DateComponents(
            year: year,
            month: month + 1,
            day: day,
            hour: hour,
            minute: minute,
            second: second
        )
        guard let date = calendar.date(from: components), calendar.component(.day, from: date) == day else {
            return nil
        }
        return date
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
}
