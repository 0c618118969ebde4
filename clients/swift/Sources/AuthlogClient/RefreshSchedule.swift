import Foundation

/// When the client refreshes before expiry: a set time before the access token expires, but never sooner than a
/// minimum interval after its previous attempt, so that a server clock ahead of the device's, an access token
/// that is born expired, or a failing refresh cannot make a loop.
struct RefreshSchedule: Sendable {
    /// How long before the access token's expiry the refresh is due.
    let lead: TimeInterval
    /// The least time between two attempts.
    let minimumInterval: TimeInterval
    /// The longest single wait; the schedule is looked at again after it (a far expiry, a clock change).
    static let longestWait: TimeInterval = 3_600

    /// Seconds to wait before the next attempt, for an access token expiring `untilExpiry` seconds from now and
    /// a previous attempt `sinceLastAttempt` seconds ago (`nil` when there was none).
    func wait(untilExpiry: TimeInterval, sinceLastAttempt: TimeInterval?) -> TimeInterval {
        let due = untilExpiry - self.lead
        let spacing = sinceLastAttempt.map { self.minimumInterval - $0 } ?? 0
        let wait = max(due, spacing, 0)
        return wait.isFinite ? min(wait, Self.longestWait) : Self.longestWait
    }

    /// Whether an access token expiring `untilExpiry` seconds from now is due for a refresh.
    func isDue(untilExpiry: TimeInterval) -> Bool {
        untilExpiry <= self.lead
    }
}
