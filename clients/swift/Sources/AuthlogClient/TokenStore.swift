/// Where the client keeps the session's tokens between launches.
///
/// The client reads the store once, then writes every new pair (sign-in, each refresh) before using it, and
/// clears it when the session ends. Keep only the newest pair: a spent refresh token presented again ends the
/// session. Implementations: ``InMemoryTokenStore``, ``FileTokenStore``, and on Apple platforms the Keychain
/// store shown in docs/ios.md.
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
}
