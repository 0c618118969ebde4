import Foundation

/// Hands every ``SessionEvent`` to each stream the app opened, each stream first getting
/// ``SessionEvent/initialSession(_:)`` with the state at the time it was opened.
///
/// `@unchecked Sendable`: the mutable state (`continuations`, `awaitingState`, `state`, `nextID`) is read and
/// written only while `lock` is held. (A lock rather than an actor so that opening a stream needs no `await`;
/// `Mutex` needs macOS 15.) Events are yielded under the lock too, so a stream never gets an event before its
/// initial one, nor one older than it.
final class SessionEventBroadcaster: @unchecked Sendable {
    private let lock = NSLock()
    private var continuations: [Int: AsyncStream<SessionEvent>.Continuation] = [:]
    /// Streams opened before the token store was read: they get their initial event when it is.
    private var awaitingState: Set<Int> = []
    /// The session as last recorded by the keeper; the outer `nil` until the store has been read.
    private var state: SessionIdentity??
    private var nextID = 0

    /// A new stream: the current state, then the events from now on.
    /// - Returns: the stream, and whether the state is still unknown (the caller then reads the store).
    func stream() -> (stream: AsyncStream<SessionEvent>, needsState: Bool) {
        let (stream, continuation) = AsyncStream.makeStream(
            of: SessionEvent.self,
            bufferingPolicy: .bufferingNewest(64)
        )
        let (id, needsState) = self.lock.withLock {
            self.nextID += 1
            self.continuations[self.nextID] = continuation
            if let state = self.state {
                continuation.yield(.initialSession(state))
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

    /// Records the keeper's session; streams still waiting for their initial event get it now.
    func record(_ tokens: AuthTokens?) {
        let state = tokens?.identity
        self.lock.withLock {
            self.state = .some(state)
            for id in self.awaitingState { self.continuations[id]?.yield(.initialSession(state)) }
            self.awaitingState.removeAll()
        }
    }

    /// Sends `event` to every open stream.
    func yield(_ event: SessionEvent) {
        self.lock.withLock {
            for continuation in self.continuations.values { continuation.yield(event) }
        }
    }

    deinit {
        for continuation in self.continuations.values { continuation.finish() }
    }
}
