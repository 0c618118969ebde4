import Foundation

/// Holds the session's tokens and refreshes them once for all callers (single flight): while one refresh is in
/// flight, every caller that needs fresh tokens awaits the same task, so a spent refresh token is never
/// presented twice by this process.
actor TokenKeeper {
    private let store: any TokenStore
    private let connection: APIConnection
    private let events: SessionEventBroadcaster
    private let retries: Int
    private let retryDelay: Duration
    /// The tokens and whether a refresh is in flight, for ``AuthlogClient/send(_:)``'s fast path.
    nonisolated let snapshot = TokenSnapshot()
    private var tokens: AuthTokens? {
        didSet { self.snapshot.set(self.tokens) }
    }
    private var isLoaded = false
    private var inFlight: Task<AuthTokens, any Error>? {
        didSet { self.snapshot.setRefreshing(self.inFlight != nil) }
    }

    init(
        store: any TokenStore,
        connection: APIConnection,
        events: SessionEventBroadcaster,
        retries: Int,
        retryDelay: Duration
    ) {
        self.store = store
        self.connection = connection
        self.events = events
        self.retries = retries
        self.retryDelay = retryDelay
    }

    /// The tokens, read from the store the first time.
    func current() async throws -> AuthTokens? {
        if !self.isLoaded {
            let stored: AuthTokens?
            do {
                stored = try await self.store.load()
            } catch let error as AuthlogClientError {
                throw error
            } catch {
                throw AuthlogClientError(.tokenStore, detail: "The token store cannot be read.")
            }
            // A sign-in or refresh may have finished while the store was being read.
            if !self.isLoaded {
                self.tokens = stored
                self.isLoaded = true
            }
        }
        return self.tokens
    }

    /// Tokens whose access token is good for at least `leeway` more, refreshed first when it is not.
    /// - Throws: ``AuthlogClientError`` `.signedOut` without a session, or the refresh's error.
    func validTokens(leeway: TimeInterval) async throws -> AuthTokens {
        guard let tokens = try await self.current() else { throw Self.signedOut }
        if tokens.accessTokenExpiresAt.timeIntervalSinceNow > leeway, self.inFlight == nil { return tokens }
        return try await self.refresh(replacing: tokens.accessToken)
    }

    /// Fresh tokens for a caller whose access token `used` was refused or about to expire: the result of the
    /// refresh in flight, the tokens another caller already got, or those of a new refresh.
    func refresh(replacing used: String?) async throws -> AuthTokens {
        guard let tokens = try await self.current() else { throw Self.signedOut }
        if let inFlight = self.inFlight { return try await inFlight.value }
        if let used, tokens.accessToken != used { return tokens }
        let task = Task { try await self.rotate(tokens) }
        self.inFlight = task
        defer { if self.inFlight == task { self.inFlight = nil } }
        return try await task.value
    }

    /// Stores the tokens of a new sign-in.
    func replace(with tokens: AuthTokens) async throws {
        self.tokens = tokens
        self.isLoaded = true
        try await self.save(tokens)
    }

    /// Forgets the session and tells the app why.
    func end(_ reason: SignOutReason) async {
        let hadSession = self.tokens != nil
        self.tokens = nil
        self.isLoaded = true
        try? await self.store.clear()
        if hadSession { self.events.yield(.signedOut(reason)) }
    }

    /// How long after a refresh's first attempt a lost answer may still be retried (authlog's default grace
    /// window is 10 s; a retry also waits up to ``APIConnection/refreshTimeout``).
    static let retryWindow: Duration = .seconds(6)

    /// One refresh of `tokens`: a lost answer is retried with the same refresh token (authlog answers a replay
    /// within its grace window with the same successor pair); `invalid_grant` ends the session.
    private func rotate(_ tokens: AuthTokens) async throws -> AuthTokens {
        var attempt = 0
        // No retry starts after this: with the refresh timeout it would land past authlog's grace window,
        // where the spent token is reuse.
        let lastRetry = ContinuousClock.now + Self.retryWindow
        while true {
            do {
                let next = try await self.connection.refresh(tokens)
                // A sign-in or logout meanwhile wins over the refreshed pair of the old session.
                guard self.tokens?.refreshToken == tokens.refreshToken else {
                    guard let current = self.tokens else { throw Self.signedOut }
                    return current
                }
                self.tokens = next
                try await self.save(next)
                self.events.yield(.refreshed(sessionID: next.sessionID))
                return next
            } catch let error as AuthlogClientError where error.code == .invalidGrant {
                if self.tokens?.refreshToken == tokens.refreshToken { await self.end(.sessionEnded) }
                throw AuthlogClientError(.signedOut, status: error.status, detail: error.detail)
            } catch let error as AuthlogClientError where error.code == .transport && attempt < self.retries {
                attempt += 1
                try await Task.sleep(for: self.retryDelay * attempt)
                guard ContinuousClock.now < lastRetry else { throw error }
            }
        }
    }

    private func save(_ tokens: AuthTokens) async throws {
        do {
            try await self.store.save(tokens)
        } catch let error as AuthlogClientError {
            throw error
        } catch {
            throw AuthlogClientError(.tokenStore, detail: "The token store cannot be written.")
        }
    }

    private static let signedOut = AuthlogClientError(.signedOut, detail: "There is no session: sign in first.")
}
