import Foundation

/// Hands every ``SessionEvent`` to each stream the app opened.
///
/// `@unchecked Sendable`: the only mutable state, `continuations` and `nextID`, is read and written only while
/// `lock` is held. (A lock rather than an actor so that opening a stream needs no `await`; `Mutex` needs
/// macOS 15.)
final class SessionEventBroadcaster: @unchecked Sendable {
    private let lock = NSLock()
    private var continuations: [Int: AsyncStream<SessionEvent>.Continuation] = [:]
    private var nextID = 0

    /// A new stream of the events from now on.
    func stream() -> AsyncStream<SessionEvent> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: SessionEvent.self,
            bufferingPolicy: .bufferingNewest(64)
        )
        let id = self.lock.withLock {
            self.nextID += 1
            self.continuations[self.nextID] = continuation
            return self.nextID
        }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            self.lock.withLock { _ = self.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// Sends `event` to every open stream.
    func yield(_ event: SessionEvent) {
        let targets = self.lock.withLock { Array(self.continuations.values) }
        for continuation in targets { continuation.yield(event) }
    }

    deinit {
        for continuation in self.continuations.values { continuation.finish() }
    }
}
