/// One page of ``AuthlogClient/checkedActivity(after:limit:)``: the activity with where the monitor stands on
/// each entry.
public struct CheckedActivityPage: Sendable, Equatable {
    /// The entries, newest first.
    public let entries: [CheckedActivityEntry]
    /// The cursor of the next (older) page, or `nil` after the last.
    public let next: String?

    /// Creates a page.
    public init(entries: [CheckedActivityEntry], next: String?) {
        self.entries = entries
        self.next = next
    }
}

/// An activity entry and its receipt's state: verified at a position and witnessed by some, pending, refused,
/// or not checked yet.
public struct CheckedActivityEntry: Sendable, Equatable, Identifiable {
    /// The entry as listed.
    public let entry: ActivityEntry
    /// Where the monitor stands on it (``ReceiptState/notChecked`` when the monitor is off).
    public let receipt: ReceiptState

    /// The event id.
    public var id: String { self.entry.id }

    /// Creates an entry.
    public init(entry: ActivityEntry, receipt: ReceiptState) {
        self.entry = entry
        self.receipt = receipt
    }
}

extension AuthlogClient {
    /// `GET /v1/me/activity` with each entry's receipt state: the monitor is asked to check the entries it has
    /// not seen (as events of any of the user's sessions, at the time and position the list gives), and their
    /// states follow on ``monitorEvents()`` as they settle; call again to show them.
    /// - Parameters:
    ///   - cursor: ``CheckedActivityPage/next`` of the previous page, or `nil` for the newest.
    ///   - limit: the most entries wanted, or `nil` for the server's default.
    /// - Returns: the entries with their receipts' states, and the cursor of the next page.
    /// - Throws: ``AuthlogClientError``: `.signedOut`, `.transport`, authlog's code.
    public func checkedActivity(after cursor: String? = nil, limit: Int? = nil) async throws -> CheckedActivityPage {
        let page = try await self.activity(after: cursor, limit: limit)
        guard let monitor = self.monitor, let userID = try await self.keeper.current()?.userID else {
            return CheckedActivityPage(
                entries: page.entries.map { CheckedActivityEntry(entry: $0, receipt: .notChecked) },
                next: page.next
            )
        }
        let states = await monitor.check(page.entries, userID: userID)
        return CheckedActivityPage(
            entries: zip(page.entries, states).map { CheckedActivityEntry(entry: $0, receipt: $1) },
            next: page.next
        )
    }

    /// The monitor's events (``LogMonitor/monitorEvents()``); a stream that ends at once when the monitor is off.
    public func monitorEvents() -> AsyncStream<MonitorEvent> {
        guard let monitor = self.monitor else { return AsyncStream { $0.finish() } }
        return monitor.monitorEvents()
    }
}
