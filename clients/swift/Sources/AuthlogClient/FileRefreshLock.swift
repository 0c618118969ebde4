public import Foundation

/// A ``RefreshLock`` on a file that every process sharing the token store can open: an exclusive `flock(2)` on
/// Linux, an `NSFileCoordinator` write on Apple platforms (where a process suspended while holding a `flock` in
/// a shared container is killed by the system). The file is created when missing and its contents are never
/// read; it needs no cleaning up.
public struct FileRefreshLock: RefreshLock {
    /// The lock's file; every process sharing the store must name the same one.
    public let url: URL
    /// How long a waiter waits for another process's refresh (a refresh takes at most some 10 s).
    public let timeout: Duration

    /// A lock on the file at `url`; its folder must exist.
    /// - Parameters:
    ///   - url: The lock's file.
    ///   - timeout: How long to wait for the lock before giving up.
    public init(url: URL, timeout: Duration = .seconds(30)) {
        self.url = url
        self.timeout = timeout
    }

    /// Runs `body` while holding the lock.
    /// - Throws: ``AuthlogClientError`` `.tokenStore` when the file cannot be opened or the wait times out, or
    ///   what `body` threw.
    public func withLock<Value: Sendable>(_ body: @Sendable () async throws -> Value) async throws -> Value {
        #if canImport(Darwin)
        let hold = try await CoordinatedHold.acquire(self.url, within: self.timeout)
        #else
        let hold = try await FlockHold.acquire(self.url.path, within: self.timeout)
        #endif
        defer { hold.release() }
        return try await body()
    }
}
