import AuthlogClient
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The rounds of requests, and what the client did meanwhile.
struct ProbeRun {
    let options: ProbeOptions

    init(_ options: ProbeOptions) {
        self.options = options
    }

    /// Runs the rounds and counts the answers and the session's events.
    func run() async -> ProbeTally {
        let files = FileTokenStore(url: self.options.tokenFile)
        let store: any TokenStore = self.options.lock ? files : UnlockedStore(inner: files)
        let client = AuthlogClient(
            baseURL: self.options.baseURL,
            tokenStore: store,
            configuration: .init(
                refreshLeeway: 1,
                refreshBeforeExpiry: self.options.refreshAhead ? 1.5 : nil,
                minimumRefreshInterval: 1
            )
        )
        let events = Task {
            var tally = ProbeTally()
            for await event in client.sessionEvents() {
                switch event {
                case .refreshed: tally.refreshes += 1
                case .signedOut: tally.signedOut += 1
                case .initialSession, .signedIn, .unusualSignin: break
                }
            }
            return tally
        }
        var tally = ProbeTally()
        let request = URLRequest(url: self.options.baseURL.appendingPathComponent(self.options.path))
        for round in 0..<self.options.rounds {
            let statuses = await withTaskGroup(of: Int.self) { group in
                for _ in 0..<self.options.concurrency {
                    group.addTask {
                        do {
                            return try await client.send(request).1.statusCode
                        } catch let error as AuthlogClientError where error.isSignedOut {
                            return -1
                        } catch {
                            return 0
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            tally.count(statuses)
            try? await Task.sleep(for: self.options.pause)
            if self.options.idleEvery > 0, (round + 1) % self.options.idleEvery == 0 {
                try? await Task.sleep(for: self.options.idle)
            }
        }
        // Let the event stream catch up before it is read.
        try? await Task.sleep(for: .milliseconds(200))
        events.cancel()
        let seen = await events.value
        tally.refreshes = seen.refreshes
        tally.signedOut = seen.signedOut
        return tally
    }
}

/// The store without its refresh lock: how two processes shared one store before the lock.
struct UnlockedStore: TokenStore {
    let inner: FileTokenStore

    func load() async throws -> AuthTokens? { try await self.inner.load() }
    func save(_ tokens: AuthTokens) async throws { try await self.inner.save(tokens) }
    func clear() async throws { try await self.inner.clear() }
}
