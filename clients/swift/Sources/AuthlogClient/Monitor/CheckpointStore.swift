/// Where the monitor keeps its ``MonitorRecord``. The monitor re-verifies the kept note with the pinned key when
/// it reads it, so a store needs no integrity of its own; it must keep what it was given across launches. The
/// monitor writes the record each time its queue changes (an answer named events, a round settled some), from a
/// background task.
public protocol CheckpointStore: Sendable {
    /// The record; an empty one when nothing was saved yet.
    /// - Throws: when the record cannot be read.
    func load() async throws -> MonitorRecord

    /// Replaces the record.
    /// - Throws: when it cannot be written.
    func save(_ record: MonitorRecord) async throws
}

/// A record held in memory: the device forgets the kept checkpoint when the process ends (tests, or an app
/// that wants no state on disk).
public actor InMemoryCheckpointStore: CheckpointStore {
    private var record: MonitorRecord

    /// A store holding `record`.
    public init(_ record: MonitorRecord = MonitorRecord()) {
        self.record = record
    }

    /// The record held.
    public func load() -> MonitorRecord { self.record }

    /// Holds `record` instead.
    public func save(_ record: MonitorRecord) { self.record = record }
}
