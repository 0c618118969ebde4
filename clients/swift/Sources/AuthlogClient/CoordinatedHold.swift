#if canImport(Darwin)
import Foundation

/// A coordinated write of a file (`NSFileCoordinator`), held until ``release()``: other processes' coordinated
/// writes of the same file wait meanwhile. The coordinator's accessor runs on a queue thread and waits there
/// for the release, so the hold can span the refresh's network call.
///
/// `@unchecked Sendable`: its only stored property is a `DispatchSemaphore`, which is safe to signal and wait on
/// from any thread.
final class CoordinatedHold: @unchecked Sendable {
    private let released = DispatchSemaphore(value: 0)

    /// Starts a coordinated write of `url` and returns once it is granted.
    /// - Throws: ``AuthlogClientError`` `.tokenStore` when the coordinator refuses.
    static func acquire(_ url: URL) async throws -> CoordinatedHold {
        let hold = CoordinatedHold()
        try await withCheckedThrowingContinuation { (granted: CheckedContinuation<Void, any Error>) in
            DispatchQueue.global(qos: .userInitiated).async {
                var failure: NSError?
                var entered = false
                NSFileCoordinator(filePresenter: nil).coordinate(writingItemAt: url, options: [], error: &failure) {
                    _ in
                    entered = true
                    granted.resume()
                    hold.released.wait()
                }
                if !entered {
                    granted.resume(
                        throwing: AuthlogClientError(
                            .tokenStore,
                            detail: "The refresh lock's file cannot be coordinated."
                        )
                    )
                }
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
