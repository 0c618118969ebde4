import Foundation

/// Hands every event to each stream the app opened, each stream first getting an initial event made from the
/// state at the time it was opened: ``SessionEvent/initialSession(_:)`` for the session,
/// ``MonitorEvent/initialState(_:)`` for the monitor.
///
/// `@unchecked Sendable`: the mutable state (`continuations`, `awaitingState`, `state`, `nextID`) is read and
/// written only while `lock` is held; `initial` is immutable. (A lock rather than an actor so that opening a
/// stream needs no `await`; `Mutex` needs macOS 15.) Events are yielded under the lock too, so a stream never
/// gets an event before its initial one, nor one older than it.
final class StateBroadcaster<Event: Sendable, State: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private let initial: @Sendable (State) -> Event
    private var continuations: [Int: AsyncStream<Event>.Continuation] = [:]
    /// Streams opened before the state was known: they get their initial event when it is.
    private var awaitingState: Set<Int> = []
    /// The state as last recorded; `nil` until it is known.
    private var state: State?
    private var nextID = 0

    /// A broadcaster whose streams start with `initial(state)`.
    init(initial: @escaping @Sendable (State) -> Event) {
        self.initial = initial
    }

    /// A new stream: the current state, then the events from now on.
    /// - Returns: the stream, and whether the state is still unknown (the caller then finds it out).
    func stream() -> (stream: AsyncStream<Event>, needsState: Bool) {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(64))
        let (id, needsState) = self.lock.withLock {
            self.nextID += 1
            self.continuations[self.nextID] = continuation
            if let state = self.state {
                continuation.yield(self.initial(state))
                return (self.nextID, false)
            }
            self.awaitingState.insert(self.nextID)
            return (self.nextID, true)
        }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            self.lock.withLock {
                _ = self.continuations.removeValue(forKey: id)
                _ = self.awaitingState.remove(id)
            }
        }
        return (stream, needsState)
    }

    /// Records the state; streams still waiting for their initial event get it now.
    func record(_ state: State) {
        self.lock.withLock {
            self.state = state
            for id in self.awaitingState { self.continuations[id]?.yield(self.initial(state)) }
            self.awaitingState.removeAll()
        }
    }

    /// Sends `event` to every open stream.
    func yield(_ event: Event) {
        self.lock.withLock {
            for continuation in self.continuations.values { continuation.yield(event) }
        }
    }

    deinit {
        for continuation in self.continuations.values { continuation.finish() }
    }
}

/// The session's events, each stream opening with ``SessionEvent/initialSession(_:)``.
typealias SessionEventBroadcaster = StateBroadcaster<SessionEvent, SessionIdentity?>

extension StateBroadcaster where Event == SessionEvent, State == SessionIdentity? {
    /// A broadcaster of the session's events.
    convenience init() {
        self.init(initial: { .initialSession($0) })
    }
}
