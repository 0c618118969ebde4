/// Where the client keeps the session's tokens between launches.
///
/// The client reads the store once, then writes every new pair (sign-in, each refresh) before using it, and
/// clears it when the session ends. Keep only the newest pair: a spent refresh token presented again ends the
/// session. Implementations: ``InMemoryTokenStore``, ``FileTokenStore``, and on Apple platforms
/// ``KeychainTokenStore``.
///
/// A store that several processes share (an app and its extensions) gives a ``refreshLock``: the client then
/// refreshes and writes only while holding it, and reads the store again first, so that one process never
/// presents a refresh token another has already spent.
public protocol TokenStore: Sendable {
    /// The stored tokens, or `nil` when there is no session.
    /// - Throws: when the storage cannot be read.
    func load() async throws -> AuthTokens?
    /// Replaces the stored tokens.
    /// - Throws: when the storage cannot be written.
    func save(_ tokens: AuthTokens) async throws
    /// Forgets the tokens.
    /// - Throws: when the storage cannot be written.
    func clear() async throws
    /// The lock that the processes sharing this store take around a refresh, or `nil` for a store no other
    /// process writes.
    var refreshLock: (any RefreshLock)? { get }
}

extension TokenStore {
    /// `nil`: a store of this process alone.
    public var refreshLock: (any RefreshLock)? { nil }
}
