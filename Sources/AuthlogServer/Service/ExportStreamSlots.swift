import Synchronization

/// How many streamed exports (`GET /v1/events/stream`) one `serve` process runs at once. Each holds three
/// pages (``EventReader/streamPageSize`` events: one read, one being built, one written; some 15 MB at most)
/// and keeps a core busy; a SIEM needs one, so a few are plenty, and a key that opens more is refused with 429
/// until one ends.
final class ExportStreamSlots: Sendable {
    /// The most streams at once (four: about 60 MB in all at most).
    static let defaultLimit = 4

    let limit: Int
    private let taken = Mutex(0)

    init(limit: Int = ExportStreamSlots.defaultLimit) { self.limit = limit }

    /// Takes a slot; false when all are taken.
    func take() -> Bool {
        self.taken.withLock { taken in
            guard taken < self.limit else { return false }
            taken += 1
            return true
        }
    }

    /// Gives back a slot taken with ``take()``.
    func giveBack() { self.taken.withLock { $0 -= 1 } }
}

/// One taken slot of ``ExportStreamSlots``, given back when the last reference goes: after the stream's
/// answer was written, failed or never started (its response dropped before its body was asked for).
final class ExportStreamSlot: Sendable {
    private let slots: ExportStreamSlots

    /// Takes a slot; nil when all are taken.
    init?(of slots: ExportStreamSlots) {
        guard slots.take() else { return nil }
        self.slots = slots
    }

    deinit { self.slots.giveBack() }
}
