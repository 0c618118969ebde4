import Foundation

/// The keeper's way to the monitor, which is made after it: the events a refresh answer names are noted
/// through it. It holds the monitor weakly, so that keeper and monitor do not keep each other alive.
///
/// `@unchecked Sendable`: `monitor` is read and written only while `lock` is held.
final class MonitorLink: @unchecked Sendable {
    private let lock = NSLock()
    private weak var monitor: LogMonitor?

    /// Links `monitor`.
    func attach(_ monitor: LogMonitor) { self.lock.withLock { self.monitor = monitor } }

    /// The monitor, if there is one and it is alive.
    var current: LogMonitor? { self.lock.withLock { self.monitor } }

    /// Notes `ids` as events of the refresh answer `expectation` describes; nothing without a monitor.
    func noteRefresh(_ ids: [String], _ expectation: EventExpectation) async {
        guard !ids.isEmpty, let monitor = self.current else { return }
        await monitor.noteRefresh(ids, expectation: expectation)
    }
}
