import Foundation

/// Hands every event to each stream the app opened, each stream first getting an initial event made from the
/// state at the time it was opened: ``SessionEvent/initialSession(_:)`` for the session,
/// ``MonitorEvent/initialState(_:)`` for the monitor.
///
/// A lock rather than an actor so that opening a stream needs no `await` (`Mutex` needs macOS 15). Events are
/// yielded under the lock, so a stream never gets an event before its initial one, nor one older than it.
final class StateBroadcaster<Event: Sendable, State: Sendable>: Sendable {
    private let initial: @Sendable (State) -> Event
    private let streams = Streams()

    /// The open streams and the state, behind one lock. A stream's termination handler holds this (not the
    /// broadcaster, and not weakly: a weak reference's side table outlived its owner at exit under
    /// LeakSanitizer), and the broadcaster's deinit finishes every stream, which removes it from here.
    ///
    /// `@unchecked Sendable`: every stored property is read and written only while `lock` is held.
    private final class Streams: @unchecked Sendable {
        let lock = NSLock()
        var continuations: [Int: AsyncStream<Event>.Continuation] = [:]
        /// Streams opened before the state was known: they get their initial event when it is.
        var awaitingState: Set<Int> = []
        /// The state as last recorded; `nil` until it is known.
        var state: State?
        var nextID = 0

        func remove(_ id: Int) {
            self.lock.withLock {
                _ = self.continuations.removeValue(forKey: id)
                _ = self.awaitingState.remove(id)
            }
        }
    }

    /// A broadcaster whose streams start with `initial(state)`.
    init(initial: @escaping @Sendable (State) -> Event) {
        self.initial = initial
    }

    /// A new stream: the current state, then the events from now on.
    /// - Returns: the stream, and whether the state is still unknown (the caller then finds it out).
    func stream() -> (stream: AsyncStream<Event>, needsState: Bool) {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(64))
        let streams = self.streams
        let (id, needsState) = streams.lock.withLock {
            streams.nextID += 1
            streams.continuations[streams.nextID] = continuation
            if let state = streams.state {
                continuation.yield(self.initial(state))
                return (streams.nextID, false)
            }
            streams.awaitingState.insert(streams.nextID)
            return (streams.nextID, true)
        }
        continuation.onTermination = { _ in streams.remove(id) }
        return (stream, needsState)
    }

    /// Records the state; streams still waiting for their initial event get it now.
    func record(_ state: State) {
        let streams = self.streams
        streams.lock.withLock {
            streams.state = state
            for id in streams.awaitingState { streams.continuations[id]?.yield(self.initial(state)) }
            streams.awaitingState.removeAll()
        }
    }

    /// Sends `event` to every open stream.
    func yield(_ event: Event) {
        let streams = self.streams
        streams.lock.withLock {
            for continuation in streams.continuations.values { continuation.yield(event) }
        }
    }

    deinit {
        // Finished outside the lock: each stream's termination handler takes it to remove the stream.
        let open = self.streams.lock.withLock { Array(self.streams.continuations.values) }
        for continuation in open { continuation.finish() }
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
