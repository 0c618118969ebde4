import Foundation
import Testing

@_spi(Testing) @testable import AuthlogClient

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The client's refresh logic against ``RotatingTokenServer``: the first event of a listener, the refresh
/// before expiry and its bounds, the sign-out guard, and two clients sharing one file store. Each test waits for
/// events that a broken client never sends, hence the time limit.
@Suite(.timeLimit(.minutes(1)))
struct RefreshLogicTests {
    static let me = URLRequest(url: RotatingTokenServer.baseURL.appendingPathComponent("v1/me"))

    /// A client of `server` on `store`.
    static func client(
        _ server: RotatingTokenServer,
        _ store: any TokenStore,
        leeway: TimeInterval = 0.1,
        ahead: TimeInterval? = nil,
        minimumInterval: TimeInterval = 0
    ) -> AuthlogClient {
        AuthlogClient(
            baseURL: RotatingTokenServer.baseURL,
            tokenStore: store,
            transport: server,
            configuration: .init(
                refreshLeeway: leeway,
                retryDelay: .milliseconds(10),
                refreshBeforeExpiry: ahead,
                minimumRefreshInterval: minimumInterval
            )
        )
    }

    @Test func aNewListenerFirstGetsTheCurrentState() async throws {
        let server = RotatingTokenServer(lifetime: 900)
        let tokens = server.signIn()
        var signedIn = Self.client(server, InMemoryTokenStore(tokens)).sessionEvents().makeAsyncIterator()
        #expect(await signedIn.next() == .initialSession(tokens.identity))
        let client = Self.client(server, InMemoryTokenStore())
        var signedOut = client.sessionEvents().makeAsyncIterator()
        #expect(await signedOut.next() == .initialSession(nil))
        // A listener opened once the state is known gets it at once, then the events that follow.
        _ = try await client.currentTokens()
        var later = client.sessionEvents().makeAsyncIterator()
        #expect(await later.next() == .initialSession(nil))
    }

    @Test func theClientRefreshesBeforeExpiryWithoutARequest() async throws {
        let server = RotatingTokenServer(lifetime: 1.5)
        let store = InMemoryTokenStore(server.signIn(accessTokenLifetime: 1.2))
        let client = Self.client(server, store, ahead: 1, minimumInterval: 0.2)
        var events = client.sessionEvents().makeAsyncIterator()
        _ = await events.next()
        #expect(await events.next() == .refreshed(sessionID: "session-1"))
        #expect(server.count("/v1/token/refresh") == 1)
        #expect(server.count("/v1/me") == 0, "no request asked for it")
        // And again before the new pair expires, for as long as the client holds the session.
        #expect(await events.next() == .refreshed(sessionID: "session-1"))
        #expect(try await client.currentTokens()?.accessTokenExpiresAt ?? .distantPast > Date())
    }

    @Test func anExpiryThatIsAlreadyPastMakesNoRefreshLoop() async throws {
        // The server's clock is a minute ahead: every pair looks expired on arrival.
        let server = RotatingTokenServer(lifetime: -60)
        let client = Self.client(
            server,
            InMemoryTokenStore(server.signIn()),
            leeway: 30,
            ahead: 60,
            minimumInterval: 0.5
        )
        let started = ContinuousClock.now
        for _ in 0..<40 {
            #expect(try await client.send(Self.me).1.statusCode == 200)
            try await Task.sleep(for: .milliseconds(30))
        }
        let elapsed = ContinuousClock.now - started
        let refreshes = server.count("/v1/token/refresh")
        // One refresh per minimum interval at most (and the first one), not one per request.
        #expect(refreshes >= 1)
        #expect(Double(refreshes) <= elapsed / .milliseconds(500) + 2, "\(refreshes) refreshes in \(elapsed)")
        #expect(server.count("/v1/me") == 40)
    }

    @Test func refreshingBeforeExpiryStopsAtSignOut() async throws {
        let server = RotatingTokenServer(lifetime: 0.3)
        let client = Self.client(server, InMemoryTokenStore(server.signIn()), ahead: 0.2, minimumInterval: 0.05)
        #expect(await eventually { server.count("/v1/token/refresh") >= 2 })
        try await client.logout()
        let afterSignOut = server.count("/v1/token/refresh")
        try await Task.sleep(for: .milliseconds(800))
        #expect(server.count("/v1/token/refresh") == afterSignOut)
    }

    /// supabase-swift #1371: a refresh whose answer arrives after the sign-out must not write its tokens back.
    @Test func aRefreshThatFinishesAfterSignOutWritesNothingBack() async throws {
        let server = RotatingTokenServer(lifetime: 900)
        let store = InMemoryTokenStore(server.signIn())
        let client = Self.client(server, store)
        var events = client.sessionEvents().makeAsyncIterator()
        _ = await events.next()
        server.holdRequests("/v1/logout")
        server.holdAnswers("/v1/token/refresh")
        let logout = Task { try await client.logout() }
        #expect(await eventually { server.count("/v1/logout") == 1 })
        // The refresh goes out after the logout and overtakes it: the server gives it a new pair, which arrives
        // only after the sign-out.
        let refresh = Task { try await client.refresh() }
        #expect(await eventually { server.count("/v1/token/refresh") == 1 })
        server.release("/v1/logout")
        try await logout.value
        server.release("/v1/token/refresh")
        await #expect(throws: AuthlogClientError(.signedOut, detail: "There is no session: sign in first.")) {
            _ = try await refresh.value
        }
        #expect(await store.load() == nil)
        #expect(try await client.currentTokens() == nil)
        #expect(await events.next() == .signedOut(.loggedOut))
    }

    /// The store's write after a refresh fails (a full disk): the store still holds the pair that refresh spent.
    /// The next refresh does not take it for another process's newer pair (presenting it would be reuse, and end
    /// the session): it refreshes the pair it holds, and the store is written again.
    @Test func aFailedStoreWriteNeverMakesTheClientPresentASpentToken() async throws {
        let server = RotatingTokenServer(lifetime: 900)
        let file = try Self.temporaryFile()
        // The first pair's access token expires at once: a client that took the store's pair back would refresh it.
        try await FileTokenStore(url: file).save(server.signIn(accessTokenLifetime: 0.05))
        let store = FailingSaves(inner: FileTokenStore(url: file))
        let client = Self.client(server, store)
        try await Task.sleep(for: .milliseconds(100))
        store.failNext()
        await #expect(throws: AuthlogClientError.self) { try await client.refresh() }
        let next = try await client.refresh()
        #expect(server.reuses == 0, "no spent refresh token was presented")
        #expect(try await client.currentTokens()?.refreshToken == next.refreshToken)
        #expect(try await FileTokenStore(url: file).load()?.refreshToken == next.refreshToken)
    }

    @Test func twoClientsOnOneFileStoreNeverPresentASpentToken() async throws {
        let result = try await Self.shareOneFile(locked: true)
        #expect(result.reuses == 0)
        #expect(result.failures == 0)
        #expect(result.refreshes >= 3, "the tokens expired during the run")
    }

    /// The same run without the lock: the client that was idle wakes with a pair the other has rotated since,
    /// presents its spent refresh token, and the session ends for both. This is what the lock prevents.
    @Test func withoutTheLockTheWakingClientPresentsASpentToken() async throws {
        let result = try await Self.shareOneFile(locked: false)
        #expect(result.reuses >= 1)
        #expect(result.failures >= 1)
    }

    /// Across processes: a sign-out waits for the refresh another process has in flight, then clears the store;
    /// that process then finds the store empty and signs out too, writing nothing back.
    @Test func aSignOutInOneProcessIsNotUndoneByAnotherProcesssRefresh() async throws {
        let file = try Self.temporaryFile()
        let server = RotatingTokenServer(lifetime: 900)
        try await FileTokenStore(url: file).save(server.signIn())
        let app = Self.client(server, FileTokenStore(url: file))
        let widget = Self.client(server, FileTokenStore(url: file))
        var widgetEvents = widget.sessionEvents().makeAsyncIterator()
        _ = await widgetEvents.next()
        server.holdAnswers("/v1/token/refresh")
        let refresh = Task { try await widget.refresh() }
        #expect(await eventually { server.count("/v1/token/refresh") == 1 })
        let logout = Task { try await app.logout() }
        #expect(await eventually { server.count("/v1/logout") == 1 })
        server.release("/v1/token/refresh")
        _ = try await refresh.value
        try await logout.value
        #expect(try await FileTokenStore(url: file).load() == nil, "the sign-out was not undone")
        // The widget's next request finds the session ended and the store empty, and writes nothing.
        await #expect(throws: AuthlogClientError.self) { _ = try await widget.send(Self.me) }
        #expect(try await FileTokenStore(url: file).load() == nil)
        #expect(await widgetEvents.next() == .refreshed(sessionID: "session-1"))
        #expect(await widgetEvents.next() == .signedOut(.sessionEnded))
    }

    /// Two clients on one token file, one working steadily and one in bursts with idle gaps longer than an
    /// access token's life; what the server saw.
    static func shareOneFile(locked: Bool) async throws -> (reuses: Int, failures: Int, refreshes: Int) {
        let file = try Self.temporaryFile()
        let server = RotatingTokenServer(lifetime: 0.25)
        try await FileTokenStore(url: file).save(server.signIn())
        let store: @Sendable () -> any TokenStore = {
            locked ? FileTokenStore(url: file) : WithoutLock(inner: FileTokenStore(url: file))
        }
        let steady = Self.client(server, store(), leeway: 0.1)
        let bursty = Self.client(server, store(), leeway: 0.1)
        async let steadyFailures = Self.work(steady, rounds: 40, pause: .milliseconds(25), idleEvery: 0)
        async let burstyFailures = Self.work(bursty, rounds: 40, pause: .milliseconds(5), idleEvery: 10)
        let failures = await steadyFailures + burstyFailures
        return (server.reuses, failures, server.count("/v1/token/refresh"))
    }

    /// `rounds` rounds of 3 concurrent requests; after every `idleEvery` rounds a pause of 0.7 s. The
    /// number of requests that failed.
    static func work(_ client: AuthlogClient, rounds: Int, pause: Duration, idleEvery: Int) async -> Int {
        var failures = 0
        for round in 1...rounds {
            failures += await withTaskGroup(of: Int.self) { group in
                for _ in 0..<3 {
                    group.addTask { (try? await client.send(Self.me).1.statusCode) == 200 ? 0 : 1 }
                }
                return await group.reduce(0, +)
            }
            try? await Task.sleep(for: pause)
            if idleEvery > 0, round % idleEvery == 0 { try? await Task.sleep(for: .milliseconds(700)) }
        }
        return failures
    }

    static func temporaryFile() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("refresh-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.appendingPathComponent("tokens.json")
    }
}

/// A file store whose next write fails when told to, as a full disk would make it.
private final class FailingSaves: TokenStore, @unchecked Sendable {
    // @unchecked Sendable: `failing` is only read and written under `lock`; `inner` is Sendable.
    let inner: FileTokenStore
    private let lock = NSLock()
    private var failing = false

    init(inner: FileTokenStore) { self.inner = inner }

    /// Makes the next `save` throw.
    func failNext() { self.lock.withLock { self.failing = true } }

    var refreshLock: (any RefreshLock)? { self.inner.refreshLock }
    func load() async throws -> AuthTokens? { try await self.inner.load() }
    func save(_ tokens: AuthTokens) async throws {
        let fail = self.lock.withLock {
            defer { self.failing = false }
            return self.failing
        }
        if fail { throw CocoaError(.fileWriteOutOfSpace) }
        try await self.inner.save(tokens)
    }
    func clear() async throws { try await self.inner.clear() }
}

/// A file store without its refresh lock: how clients shared a store before it.
private struct WithoutLock: TokenStore {
    let inner: FileTokenStore

    func load() async throws -> AuthTokens? { try await self.inner.load() }
    func save(_ tokens: AuthTokens) async throws { try await self.inner.save(tokens) }
    func clear() async throws { try await self.inner.clear() }
}

struct RefreshScheduleTests {
    let schedule = RefreshSchedule(lead: 60, minimumInterval: 10)

    @Test func waitsUntilTheLeadBeforeExpiry() {
        #expect(self.schedule.wait(untilExpiry: 900, sinceLastAttempt: nil) == 840)
        #expect(self.schedule.isDue(untilExpiry: 60))
        #expect(!self.schedule.isDue(untilExpiry: 61))
    }

    @Test func aDueTokenIsRefreshedAtOnceTheFirstTimeThenSpacedByTheMinimumInterval() {
        #expect(self.schedule.wait(untilExpiry: -3_600, sinceLastAttempt: nil) == 0)
        #expect(self.schedule.wait(untilExpiry: -3_600, sinceLastAttempt: 4) == 6)
        #expect(self.schedule.wait(untilExpiry: 30, sinceLastAttempt: 0) == 10)
    }

    @Test func aFarOrInfiniteExpiryIsLookedAtAgainWithinTheLongestWait() {
        #expect(self.schedule.wait(untilExpiry: 1e12, sinceLastAttempt: nil) == RefreshSchedule.longestWait)
        #expect(self.schedule.wait(untilExpiry: .infinity, sinceLastAttempt: nil) == RefreshSchedule.longestWait)
        #expect(self.schedule.wait(untilExpiry: .nan, sinceLastAttempt: nil) == RefreshSchedule.longestWait)
    }
}
