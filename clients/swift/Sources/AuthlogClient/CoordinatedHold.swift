#if canImport(Darwin)
import Foundation

/// A coordinated write of a file (`NSFileCoordinator`), held until ``release()``: other processes' coordinated
/// writes of the same file wait meanwhile. The coordinator's accessor runs on a queue thread and waits there
/// for the release, so the hold can span the refresh's network call. A wait that outlasts its timeout is
/// cancelled (`NSFileCoordinator.cancel()`, which stops a wait not yet granted and leaves a granted one alone), so
/// a process whose lock holder hangs does not wait for ever.
///
/// `@unchecked Sendable`: its stored properties are a `DispatchSemaphore`, which is safe to signal and wait on
/// from any thread, and an `NSFileCoordinator`, whose `cancel()` Apple documents as callable from any thread
/// (the only call made on it from another thread than the one coordinating).
final class CoordinatedHold: @unchecked Sendable {
    private let released = DispatchSemaphore(value: 0)
    private let coordinator = NSFileCoordinator(filePresenter: nil)

    /// Starts a coordinated write of `url` and returns once it is granted.
    /// - Throws: ``AuthlogClientError`` `.tokenStore` when the coordinator refuses or the write is not granted
    ///   within `timeout`.
    static func acquire(_ url: URL, within timeout: Duration) async throws -> CoordinatedHold {
        let hold = CoordinatedHold()
        try await withCheckedThrowingContinuation { (granted: CheckedContinuation<Void, any Error>) in
            DispatchQueue.global(qos: .userInitiated).async {
                var failure: NSError?
                var entered = false
                hold.coordinator.coordinate(writingItemAt: url, options: [], error: &failure) { _ in
                    entered = true
                    granted.resume()
                    hold.released.wait()
                }
                if !entered {
                    let timedOut = failure?.domain == NSCocoaErrorDomain && failure?.code == NSUserCancelledError
                    granted.resume(
                        throwing: AuthlogClientError(
                            .tokenStore,
                            detail: timedOut
                                ? "Another process held the refresh lock for longer than \(timeout)."
                                : "The refresh lock's file cannot be coordinated."
                        )
                    )
                }
            }
            // Whole seconds, saturating: a timeout of "for ever" (Duration.seconds(Int64.max)) must not trap.
            let (seconds, attoseconds) = timeout.components
            let (scaled, overflow) = max(0, seconds).multipliedReportingOverflow(by: 1_000_000_000)
            let (sum, overflowed) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
            let nanoseconds = overflow || overflowed ? Int64.max : sum
            DispatchQueue.global(qos: .utility).asyncAfter(
                deadline: .now() + .nanoseconds(Int(clamping: nanoseconds))
            ) {
                hold.coordinator.cancel()
            }
        }
        return hold
    }

    /// Ends the coordinated write.
    func release() {
        self.released.signal()
    }
}
#endif
