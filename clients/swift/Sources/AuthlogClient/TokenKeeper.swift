import Foundation

/// Holds the session's tokens and refreshes them once for all callers (single flight): while one refresh is in
/// flight, every caller that needs fresh tokens awaits the same task, so a spent refresh token is never
/// presented twice by this process.
///
/// Across processes sharing the store (``TokenStore/refreshLock``), every refresh and every write of the store
/// happens under the lock, and the store is read again first: tokens another process rotated meanwhile are used
/// instead of the spent ones, and an empty store (another process signed out) ends the session here too. A
/// refresh that finishes after a sign-out never writes its tokens back.
actor TokenKeeper {
    private let store: any TokenStore
    private let connection: APIConnection
    private let events: SessionEventBroadcaster
    private let retries: Int
    private let retryDelay: Duration
    private let leeway: TimeInterval
    private let schedule: RefreshSchedule?
    /// The tokens and whether a refresh is in flight, for ``AuthlogClient/send(_:)``'s fast path.
    nonisolated let snapshot = TokenSnapshot()
    private var tokens: AuthTokens? {
        didSet {
            self.snapshot.set(self.tokens)
            self.events.record(self.tokens?.identity)
            if oldValue != self.tokens { self.scheduleRefresh() }
        }
    }
    private var isLoaded = false
    private var inFlight: Task<AuthTokens, any Error>? {
        didSet { self.snapshot.setRefreshing(self.inFlight != nil) }
    }
    /// The wait for the next refresh before expiry.
    private var timer: Task<Void, Never>?
    /// When the last refresh before expiry was tried.
    private var lastScheduledAttempt: ContinuousClock.Instant?
    /// When this process last rotated the tokens.
    private var lastRotation: ContinuousClock.Instant?
    /// The refresh tokens this process spent, newest last (at most ``spentKept``): a store that still holds one
    /// (its write after the refresh failed) is not another process's newer pair, and presenting it again would
    /// be reuse, which ends the session.
    private var spentRefreshTokens: [String] = []
    /// How many spent refresh tokens are remembered.
    private static let spentKept = 8
    /// The least time between two refreshes that the access token's expiry asks for.
    private let minimumInterval: Duration
    /// Where the events a refresh answer names go (the monitor, when it is on).
    private let monitor: MonitorLink

    init(
        store: any TokenStore,
        connection: APIConnection,
        events: SessionEventBroadcaster,
        configuration: AuthlogClient.Configuration,
        monitor: MonitorLink = MonitorLink()
    ) {
        self.store = store
        self.monitor = monitor
        self.connection = connection
        self.events = events
        self.retries = configuration.refreshRetries
        self.retryDelay = configuration.retryDelay
        self.leeway = configuration.refreshLeeway
        // Bounded to a day, so that no configured value (infinite, negative, NaN) can trap in the conversion.
        self.minimumInterval = .milliseconds(Int64(min(max(0, configuration.minimumRefreshInterval), 86_400) * 1_000))
        self.schedule = configuration.refreshBeforeExpiry.map {
            RefreshSchedule(lead: $0, minimumInterval: configuration.minimumRefreshInterval)
        }
    }

    deinit {
        self.timer?.cancel()
    }

    /// The tokens, read from the store the first time.
    func current() async throws -> AuthTokens? {
        if !self.isLoaded {
            let stored = try await self.load()
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
        if self.inFlight == nil {
            if tokens.accessTokenExpiresAt.timeIntervalSinceNow > leeway { return tokens }
            // Rotated moments ago and already "expiring": the server's clock or the token's expiry is odd. The
            // pair is used as it is (a 401 still refreshes it) rather than refreshed at every request.
            if let last = self.lastRotation, ContinuousClock.now - last < self.minimumInterval { return tokens }
        }
        return try await self.refresh(replacing: tokens.accessToken)
    }

    /// Fresh tokens for a caller whose access token `used` was refused or about to expire: the result of the
    /// refresh in flight, the tokens another caller already got, or those of a new refresh.
    func refresh(replacing used: String?, freshFor: TimeInterval? = nil) async throws -> AuthTokens {
        guard let tokens = try await self.current() else { throw Self.signedOut }
        if let inFlight = self.inFlight { return try await inFlight.value }
        if let used, tokens.accessToken != used { return tokens }
        let fresh = freshFor ?? self.leeway
        let task = Task { try await self.locked { try await self.rotate(tokens, freshFor: fresh) } }
        self.inFlight = task
        defer { if self.inFlight == task { self.inFlight = nil } }
        return try await task.value
    }

    /// Stores the tokens of a new sign-in.
    /// Stores the tokens of a new sign-in: in the store first (under the lock), then here, so that this
    /// process never holds a pair that the store, read again by a refresh, does not have.
    func replace(with tokens: AuthTokens) async throws {
        self.isLoaded = true
        try await self.locked { try await self.save(tokens) }
        self.tokens = tokens
    }

    /// Forgets the session and tells the app why; the store is cleared under the refresh lock, after any
    /// refresh another process has in flight (which then finds the store empty).
    func end(_ reason: SignOutReason) async {
        self.forget(reason)
        do {
            try await self.locked { try await self.clearIfSignedOut() }
        } catch {
            // The lock could not be taken: a sign-out clears the store all the same.
            try? await self.clearIfSignedOut()
        }
    }

    /// `body` under the store's refresh lock, or right away for a store without one.
    private func locked<Value: Sendable>(_ body: @Sendable () async throws -> Value) async throws -> Value {
        guard let lock = self.store.refreshLock else { return try await body() }
        return try await lock.withLock(body)
    }

    /// The tokens in memory cleared and the app told (once); the store is left to the caller.
    private func forget(_ reason: SignOutReason) {
        let hadSession = self.tokens != nil
        self.tokens = nil
        self.isLoaded = true
        if hadSession { self.events.yield(.signedOut(reason)) }
    }

    /// Clears the store unless a sign-in came in meanwhile (it then holds that sign-in's tokens).
    private func clearIfSignedOut() async throws {
        guard self.tokens == nil else { return }
        try await self.store.clear()
    }

    /// How long after a refresh's first attempt a lost answer may still be retried (authlog's default grace
    /// window is 10 s; a retry also waits up to ``APIConnection/refreshTimeout``).
    static let retryWindow: Duration = .seconds(6)

    /// One refresh of `tokens`, under the refresh lock. The store is read first: another process's newer pair is
    /// used (refreshed only if its access token expires within `freshFor`), an empty store ends the session. A
    /// lost answer is retried with the same refresh token (authlog answers a replay within its grace window
    /// with the same successor pair); after `invalid_grant` the store is read again, and only when it holds no
    /// newer pair does the session end.
    private func rotate(_ held: AuthTokens, freshFor: TimeInterval) async throws -> AuthTokens {
        var tokens = held
        if let newer = try await self.adoptStored(replacing: held) {
            if newer.accessTokenExpiresAt.timeIntervalSinceNow > freshFor { return newer }
            tokens = newer
        }
        var attempt = 0
        // No retry starts after this: with the refresh timeout it would land past authlog's grace window,
        // where the spent token is reuse.
        let lastRetry = ContinuousClock.now + Self.retryWindow
        while true {
            do {
                let requestedAt = Date()
                let (next, eventIDs, alert) = try await self.connection.refresh(tokens)
                // A sign-in or sign-out meanwhile wins over the refreshed pair of the old session: nothing is
                // written back.
                guard self.tokens?.refreshToken == tokens.refreshToken else {
                    guard let current = self.tokens else { throw Self.signedOut }
                    return current
                }
                self.lastRotation = .now
                self.tokens = next
                self.spentRefreshTokens = (self.spentRefreshTokens + [tokens.refreshToken]).suffix(Self.spentKept)
                try await self.save(next)
                // A sign-out while the store was being written (a store without a lock): it must not outlive it.
                if self.tokens == nil { try? await self.store.clear() }
                self.events.yield(.refreshed(sessionID: next.sessionID))
                if let alert { self.events.yield(.unusualSignin(alert)) }
                await self.monitor.noteRefresh(
                    eventIDs,
                    .answer(to: next.identity, at: requestedAt, types: EventExpectation.refreshTypes)
                )
                return next
            } catch let error as AuthlogClientError
                where error.code == .invalidGrant || Self.isRefusedAsUnusual(error) || Self.isBoundElsewhere(error)
            {
                if let newer = try? await self.adoptStored(replacing: tokens) { return newer }
                if self.tokens?.refreshToken == tokens.refreshToken {
                    self.forget(Self.isRefusedAsUnusual(error) ? .refusedAsUnusual : .sessionEnded)
                    try? await self.clearIfSignedOut()
                }
                throw AuthlogClientError(.signedOut, status: error.status, detail: error.detail)
            } catch let error as AuthlogClientError where error.code == .transport && attempt < self.retries {
                attempt += 1
                try await Task.sleep(for: self.retryDelay * attempt)
                guard ContinuousClock.now < lastRetry else { throw error }
            }
        }
    }

    /// Reads the store again (under the lock). Returns its tokens when they are another pair than `spent`'s
    /// and this process has not moved on meanwhile; ends the session here when the store is empty and this
    /// process still holds `spent`; otherwise `nil`.
    private func adoptStored(replacing spent: AuthTokens) async throws -> AuthTokens? {
        // A store without a lock is this process's alone: nobody else rotates or clears it.
        guard self.store.refreshLock != nil else { return nil }
        let stored = try await self.load()
        guard self.tokens?.refreshToken == spent.refreshToken else { return nil }
        guard let stored else {
            self.forget(.sessionEnded)
            throw AuthlogClientError(.signedOut, detail: "Another process sharing the token store signed out.")
        }
        guard stored.refreshToken != spent.refreshToken else { return nil }
        guard !self.spentRefreshTokens.contains(stored.refreshToken) else {
            // The store's write after this process's refresh failed: it holds the pair that refresh spent. The
            // pair held here is the live one; the store is written again with it.
            try? await self.save(spent)
            return nil
        }
        self.tokens = stored
        return stored
    }

    /// The tokens in the store.
    private func load() async throws -> AuthTokens? {
        do {
            return try await self.store.load()
        } catch let error as AuthlogClientError {
            throw error
        } catch {
            throw AuthlogClientError(.tokenStore, detail: "The token store cannot be read.")
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

    /// Waits for the next refresh before expiry of the tokens held now, if the client refreshes before expiry;
    /// a sign-out or a new pair starts the wait again.
    private func scheduleRefresh() {
        self.timer?.cancel()
        self.timer = nil
        guard let schedule = self.schedule, let tokens = self.tokens else { return }
        // Spaced from the last refresh of either kind, so the timer and requests together stay bounded.
        let last = [self.lastScheduledAttempt, self.lastRotation].compactMap { $0 }.max()
        let wait = schedule.wait(
            untilExpiry: tokens.accessTokenExpiresAt.timeIntervalSinceNow,
            sinceLastAttempt: last.map { (ContinuousClock.now - $0).timeInterval }
        )
        let accessToken = tokens.accessToken
        self.timer = Task { [weak self] in
            guard (try? await Task.sleep(for: .seconds(wait))) != nil else { return }
            await self?.refreshBeforeExpiry(accessToken)
        }
    }

    /// The timer's refresh of the pair whose access token is `accessToken`, if it is still held and due.
    private func refreshBeforeExpiry(_ accessToken: String) async {
        guard let schedule = self.schedule, let tokens = self.tokens, tokens.accessToken == accessToken else { return }
        if schedule.isDue(untilExpiry: tokens.accessTokenExpiresAt.timeIntervalSinceNow) {
            self.lastScheduledAttempt = .now
            _ = try? await self.refresh(replacing: accessToken, freshFor: schedule.lead)
        }
        // After a failed attempt (or an early wake) the tokens are the same: wait again, spaced by the schedule.
        if self.tokens?.accessToken == accessToken { self.scheduleRefresh() }
    }

    private static let signedOut = AuthlogClientError(.signedOut, detail: "There is no session: sign in first.")

    /// Whether a refresh was refused because these tokens can never be refreshed with this store's key: bound to
    /// another key (a copy of another install's tokens), bound while this client has DPoP off, or a Bearer family
    /// offered a proof. authlog ended nothing, but this device's copy is dead: the session ends here.
    private static func isBoundElsewhere(_ error: AuthlogClientError) -> Bool {
        guard error.code == .invalidDPoPProof, let reason = error.dpopReason else { return false }
        return reason == .wrongKey || reason == .missing || reason == .familyUnbound
    }

    /// Whether a refresh was refused because the server judged it unusual (a new device, place or network) and
    /// its policy refuses such refreshes: a refresh carries no provider proof, so asking again cannot help; the
    /// session ends on this device and the user signs in again.
    private static func isRefusedAsUnusual(_ error: AuthlogClientError) -> Bool {
        error.status == 401 && (error.code == .signinUnusual || error.code == .reauthenticationRequired)
    }
}
