@_spi(Testing) import AuthlogClient
import AuthlogTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Servers {
    /// Single-flight refresh under concurrency, and a refresh whose answer the network lost.
    @Suite(.enabled(if: TestDatabase.isAvailable))
    struct ClientRefreshTests {
        @Test func fiftyConcurrentSendsWithAnExpiredAccessTokenMakeOneRefresh() async throws {
            try await ClientTestServer.run { server in
                // One store: the tokens are bound to its DPoP key.
                let store = InMemoryTokenStore()
                let signedIn = try await AuthlogClient(baseURL: server.baseURL, tokenStore: store)
                    .signIn(with: .dev(subject: "erin"))
                var expired = signedIn.tokens
                expired.accessTokenExpiresAt = Date().addingTimeInterval(-60)
                await store.save(expired)
                let transport = CountingTransport()
                let client = AuthlogClient(baseURL: server.baseURL, tokenStore: store, transport: transport)
                let request = ClientRequests.receipt(server, eventID: signedIn.eventIDs[0])
                let statuses = try await Self.sendConcurrently(50, request, through: client)
                #expect(transport.count("/v1/token/refresh") == 1, "one refresh for all 50 callers")
                #expect(transport.count(request.url?.path ?? "") == 50, "each request sent once, after the refresh")
                #expect(statuses.allSatisfy { $0 != 401 }, "\(statuses)")
                let stored = await store.load()
                #expect(stored?.refreshToken != signedIn.tokens.refreshToken)
                #expect(stored?.accessTokenExpiresAt ?? .distantPast > Date())
            }
        }

        @Test func fiftyConcurrentSendsRefusedWith401MakeOneRefreshAndRetryOnce() async throws {
            try await ClientTestServer.run { server in
                let store = InMemoryTokenStore()
                let signedIn = try await AuthlogClient(baseURL: server.baseURL, tokenStore: store)
                    .signIn(with: .dev(subject: "frank"))
                var refused = signedIn.tokens
                refused.accessToken = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl"
                await store.save(refused)
                let transport = CountingTransport()
                let client = AuthlogClient(baseURL: server.baseURL, tokenStore: store, transport: transport)
                let request = ClientRequests.receipt(server, eventID: signedIn.eventIDs[0])
                let statuses = try await Self.sendConcurrently(50, request, through: client)
                #expect(transport.count("/v1/token/refresh") == 1)
                // Each request refused once is sent again once; a request that started after the refresh goes once.
                #expect((51...100).contains(transport.count(request.url?.path ?? "")))
                #expect(statuses.allSatisfy { $0 != 401 }, "\(statuses)")
            }
        }

        /// Passes once the server answers a replayed refresh token within `refresh_token.reuse_grace_seconds` with
        /// the same successor pair; before that, the replay is taken for theft and the session ends.
        @Test func aRefreshAnswerLostOnTheWayIsRetriedAndTheSessionKept() async throws {
            try await ClientTestServer.run { server in
                let proxy = try DroppingProxy(targetPort: server.baseURL.port ?? 0)
                defer { proxy.stop() }
                let transport = CountingTransport()
                let store = InMemoryTokenStore()
                let client = AuthlogClient(
                    baseURL: try #require(URL(string: "http://127.0.0.1:\(proxy.port)")),
                    tokenStore: store,
                    transport: transport,
                    configuration: .init(retryDelay: .milliseconds(100))
                )
                let signedIn = try await client.signIn(with: .dev(subject: "grace"))
                let refreshed = try await client.refresh()
                #expect(proxy.cuts == 1, "the first refresh answer was cut")
                #expect(transport.count("/v1/token/refresh") == 2, "and the refresh was sent again")
                #expect(refreshed.sessionID == signedIn.tokens.sessionID)
                #expect(await store.load() == refreshed)
                // The session goes on: the successor pair refreshes and authorizes.
                let next = try await client.refresh()
                #expect(next.refreshToken != refreshed.refreshToken)
                let (_, answer) = try await client.send(ClientRequests.receipt(server, eventID: signedIn.eventIDs[0]))
                #expect(answer.statusCode != 401)
            }
        }

        /// `count` concurrent sends of `request`; their statuses.
        static func sendConcurrently(
            _ count: Int,
            _ request: URLRequest,
            through client: AuthlogClient
        ) async throws
            -> [Int]
        {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<count {
                    group.addTask { try await client.send(request).1.statusCode }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
    }
}
