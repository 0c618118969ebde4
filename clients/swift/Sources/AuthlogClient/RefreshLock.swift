/// A lock that the clients sharing one token store (an app and its extensions, or several processes) take around
/// each refresh and each write of the store, so that only one of them spends a refresh token at a time and the
/// others find the new pair in the store instead of presenting the spent one (which authlog takes for theft).
///
/// ``FileRefreshLock`` is the one to use: `flock` on Linux, `NSFileCoordinator` on Apple platforms.
/// ``FileTokenStore`` has one on a file beside its own; give `KeychainTokenStore` one on a file in the app
/// group's shared container (docs/ios.md).
public protocol RefreshLock: Sendable {
    /// Runs `body` while holding the lock, waiting for it first.
    /// - Throws: ``AuthlogClientError`` `.tokenStore` when the lock cannot be taken, or what `body` threw.
    func withLock<Value: Sendable>(_ body: @Sendable () async throws -> Value) async throws -> Value
}
