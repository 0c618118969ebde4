import Synchronization

/// How many streamed exports (`GET /v1/events/stream`) run at once: one per API key, and
/// ``limit`` in one `serve` process. Each holds three pages (``EventReader/streamPageSize`` events and about
/// ``EventReader/streamPageBytes`` of `data` each: one read, one being built, one written; some 25 MB at most)
/// and keeps a core busy. A SIEM needs one stream; a key that opens a second is refused with 429, and a
/// process whose slots are all taken refuses with 503 until one ends.
final class ExportStreamSlots: Sendable {
    /// The most streams at once in a process (four: about 100 MB in all at most).
    static let defaultLimit = 4

    /// Which bound a refused stream met.
    enum Busy: Error, Equatable {
        /// The key already has a stream running.
        case key
        /// Every slot of the process is taken.
        case server
    }

    let limit: Int
    private let taken = Mutex<[String: Int]>([:])

    init(limit: Int = ExportStreamSlots.defaultLimit) { self.limit = limit }

    /// Takes a slot for `key`; the bound it met otherwise.
    func take(key: String) -> Busy? {
        self.taken.withLock { taken in
            guard taken[key, default: 0] == 0 else { return .key }
            guard taken.values.reduce(0, +) < self.limit else { return .server }
            taken[key, default: 0] += 1
            return nil
        }
    }

    /// Gives back a slot taken with ``take(key:)``.
    func giveBack(key: String) {
        self.taken.withLock { taken in
            let left = taken[key, default: 1] - 1
            taken[key] = left > 0 ? left : nil
        }
    }
}

/// One taken slot of ``ExportStreamSlots``, given back when the last reference goes: after the stream's
/// answer was written, failed or never started (its response dropped before its body was asked for).
final class ExportStreamSlot: Sendable {
    private let slots: ExportStreamSlots
    private let key: String

    private init(slots: ExportStreamSlots, key: String) {
        self.slots = slots
        self.key = key
    }

    /// Takes a slot for `key`, or says which bound it met.
    static func take(of slots: ExportStreamSlots, key: String) -> Result<ExportStreamSlot, ExportStreamSlots.Busy> {
        if let busy = slots.take(key: key) { return .failure(busy) }
        return .success(ExportStreamSlot(slots: slots, key: key))
    }

    deinit { self.slots.giveBack(key: self.key) }
}
