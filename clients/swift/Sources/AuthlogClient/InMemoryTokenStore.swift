/// Tokens held in memory only: the session ends with the process (tests, "do not remember me").
public actor InMemoryTokenStore: TokenStore {
    private var tokens: AuthTokens?

    /// Creates a store holding `tokens`.
    public init(_ tokens: AuthTokens? = nil) {
        self.tokens = tokens
    }

    /// The tokens held.
    public func load() -> AuthTokens? { self.tokens }

    /// Holds `tokens` instead.
    public func save(_ tokens: AuthTokens) { self.tokens = tokens }

    /// Drops the tokens.
    public func clear() { self.tokens = nil }
}
