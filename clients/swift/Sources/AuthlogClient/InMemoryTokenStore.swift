/// Tokens held in memory only: the session ends with the process (tests, "do not remember me").
///
/// Its device id and DPoP key last as long as the store: an app that makes a new store at each launch looks to authlog like
/// a new device each time (a `new_device` judgement at each sign-in). For "do not remember me" in an app, prefer
/// a lasting store and `signIn(with:rememberMe: false)`.
public actor InMemoryTokenStore: TokenStore {
    private var tokens: AuthTokens?
    private var deviceID: String?
    private var dpopKey: StoredDPoPKey?

    /// Creates a store holding `tokens`.
    public init(_ tokens: AuthTokens? = nil) {
        self.tokens = tokens
    }

    /// The tokens held.
    public func load() -> AuthTokens? { self.tokens }

    /// Holds `tokens` instead.
    public func save(_ tokens: AuthTokens) { self.tokens = tokens }

    /// Drops the tokens; the device id and the DPoP key stay.
    public func clear() { self.tokens = nil }

    /// The store's device id, made the first time it is asked for.
    /// - Returns: 43 base64url characters over 32 random bytes.
    /// - Throws: ``AuthlogClientError`` `.randomUnavailable` when the system's random generator fails.
    public func loadOrCreateDeviceID() async throws -> String? {
        if let deviceID = self.deviceID { return deviceID }
        let made = try DeviceID.make()
        self.deviceID = made
        return made
    }

    /// The store's DPoP key, made the first time it is asked for (or when it holds `unusable`).
    /// - Parameters:
    ///   - unusable: A key the client could not use, replaced when the store holds it.
    ///   - make: Makes the key.
    /// - Returns: The key.
    /// - Throws: What `make` threw.
    public func loadOrCreateDPoPKey(
        replacing unusable: StoredDPoPKey?,
        make: @Sendable () throws -> StoredDPoPKey
    ) throws -> StoredDPoPKey? {
        if let dpopKey = self.dpopKey, dpopKey != unusable { return dpopKey }
        let made = try make()
        self.dpopKey = made
        return made
    }
}
