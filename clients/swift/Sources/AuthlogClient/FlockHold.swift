#if !canImport(Darwin)
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// An exclusive `flock(2)` on a file, held until ``release()``. Locks of `flock` belong to the open file, so two
/// holds are exclusive whether they are in two processes or in one.
struct FlockHold {
    private let descriptor: Int32

    /// Opens (or creates, mode 0600) the file at `path` and takes the lock, polling without blocking a thread.
    /// - Throws: ``AuthlogClientError`` `.tokenStore` when the file cannot be opened or `timeout` passes first.
    static func acquire(_ path: String, within timeout: Duration) async throws -> FlockHold {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw AuthlogClientError(.tokenStore, detail: "The refresh lock's file cannot be opened (errno \(errno)).")
        }
        let deadline = ContinuousClock.now + timeout
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let failure = errno
            guard failure == EWOULDBLOCK || failure == EINTR, ContinuousClock.now < deadline else {
                close(descriptor)
                throw AuthlogClientError(.tokenStore, detail: "The refresh lock cannot be taken (errno \(failure)).")
            }
            do {
                try await Task.sleep(for: .milliseconds(5))
            } catch {
                close(descriptor)
                throw error
            }
        }
        return FlockHold(descriptor: descriptor)
    }

    /// Lets the lock go (closing the file releases it).
    func release() {
        close(self.descriptor)
    }
}
#endif
