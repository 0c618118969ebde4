/// What the monitor keeps between launches: the newest checkpoint it verified and the split-view alarm that
/// stands until the app clears it.
public struct MonitorRecord: Sendable, Hashable, Codable {
    /// The newest checkpoint note the device verified, verbatim; `nil` before the first.
    public var checkpoint: String?
    /// The alarm raised and not yet cleared by the app.
    public var alarm: SplitViewAlarm?

    /// Creates a record.
    public init(checkpoint: String? = nil, alarm: SplitViewAlarm? = nil) {
        self.checkpoint = checkpoint
        self.alarm = alarm
    }
}

/// Where the monitor keeps its ``MonitorRecord``. The monitor re-verifies the kept note with the pinned key when
/// it reads it, so a store needs no integrity of its own; it must keep what it was given across launches.
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
