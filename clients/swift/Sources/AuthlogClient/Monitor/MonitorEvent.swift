public import AuthlogTransparency

/// What the monitor found, for the app to follow with ``AuthlogClient/monitorEvents()``.
///
/// Each new stream starts with ``initialState(_:)``: the state at the time it was opened, a standing alarm
/// included.
public enum MonitorEvent: Sendable, Equatable {
    /// The first event of every stream: the kept checkpoint, the standing alarm and the queue.
    case initialState(MonitorState)
    /// An event's receipt changed state (pending, verified or refused).
    case receipt(eventID: String, ReceiptState)
    /// A newer checkpoint was proven consistent with the kept one and is kept instead (or the first one was
    /// kept).
    case checkpointKept(Checkpoint)
    /// The log showed two views that cannot both be true: show it to the user, keep the evidence.
    case alarm(SplitViewAlarm)
    /// The alarm was posted to the configured URL (`delivered`), or every try failed.
    case alarmReported(delivered: Bool)
    /// The app cleared the standing alarm.
    case alarmCleared
    /// The queue was full: this many event ids named by answers were not taken.
    case queueFull(dropped: Int)
    /// A round of checks failed; the events stay queued and are asked for again after a back-off.
    case error(MonitorError)
}

/// The monitor's state as a new listener sees it first.
public struct MonitorState: Sendable, Equatable {
    /// The newest checkpoint the device verified and keeps.
    public var keptCheckpoint: Checkpoint?
    /// The alarm that stands until the app clears it.
    public var alarm: SplitViewAlarm?
    /// How many events wait for their receipt.
    public var queued: Int

    /// Creates a state.
    public init(keptCheckpoint: Checkpoint?, alarm: SplitViewAlarm?, queued: Int) {
        self.keptCheckpoint = keptCheckpoint
        self.alarm = alarm
        self.queued = queued
    }
}
