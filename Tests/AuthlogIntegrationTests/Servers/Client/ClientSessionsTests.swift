import AuthlogClient
import AuthlogTesting
import Foundation
import Testing

extension Servers {
    /// The session list and account activity (`/v1/me/sessions`, `/v1/me/activity`), written against the routes'
    /// contract; they fail until the server has the routes.
    @Suite(.enabled(if: TestDatabase.isAvailable))
    struct ClientSessionsTests {
        @Test func sessionsListsEveryDeviceAndMarksThisOne() async throws {
            try await ClientTestServer.run { server in
                let phone = AuthlogClient(baseURL: server.baseURL, configuration: .init(userAgent: "Phone/1.0"))
                let tablet = AuthlogClient(baseURL: server.baseURL)
                let mine = try await phone.signIn(with: .dev(subject: "henry"))
                let theirs = try await tablet.signIn(with: .dev(subject: "henry"))
                let sessions = try await phone.sessions()
                #expect(Set(sessions.map(\.id)) == [mine.tokens.sessionID, theirs.tokens.sessionID])
                #expect(sessions.filter(\.isCurrent).map(\.id) == [mine.tokens.sessionID])
                #expect(sessions.allSatisfy { $0.provider == "dev" && abs($0.startedAt.timeIntervalSinceNow) < 120 })
            }
        }

        @Test func revokingAnotherSessionSignsThatDeviceOut() async throws {
            try await ClientTestServer.run { server in
                let phone = AuthlogClient(baseURL: server.baseURL)
                let tablet = AuthlogClient(baseURL: server.baseURL)
                try await phone.signIn(with: .dev(subject: "iris"))
                let theirs = try await tablet.signIn(with: .dev(subject: "iris"))
                try await phone.revokeSession(id: theirs.tokens.sessionID)
                await #expect(throws: AuthlogClientError.self) { try await tablet.refresh() }
                #expect(try await tablet.currentTokens() == nil)
                do {
                    try await phone.revokeSession(id: UUID().uuidString.lowercased())
                    Issue.record("an unknown session was revoked")
                } catch let error as AuthlogClientError {
                    #expect(error.code == .notFound && error.status == 404)
                }
                #expect(try await phone.sessions().count == 1)
            }
        }

        @Test func revokeOthersKeepsOnlyThisSession() async throws {
            try await ClientTestServer.run { server in
                let clients = (0..<3).map { _ in AuthlogClient(baseURL: server.baseURL) }
                for client in clients { try await client.signIn(with: .dev(subject: "jack")) }
                #expect(try await clients[0].revokeOtherSessions() == 2)
                for other in clients.dropFirst() {
                    await #expect(throws: AuthlogClientError.self) { try await other.refresh() }
                }
                #expect(try await clients[0].sessions().count == 1)
            }
        }

        /// "This wasn't me" on another device's sign-in: both devices are signed out, this one with
        /// `.reportedNotMe`; an id that is not an entry of the user's activity is `not_found` and ends nothing.
        @Test func reportingNotMeSignsEveryDeviceOutThisOneToo() async throws {
            try await ClientTestServer.run { server in
                let store = InMemoryTokenStore()
                let phone = AuthlogClient(baseURL: server.baseURL, tokenStore: store)
                let stolen = AuthlogClient(baseURL: server.baseURL)
                let mine = try await phone.signIn(with: .dev(subject: "lena"))
                let theirs = try await stolen.signIn(with: .dev(subject: "lena"))
                do {
                    try await phone.reportNotMe(eventID: UUID().uuidString.lowercased())
                    Issue.record("an unknown entry was reported")
                } catch let error as AuthlogClientError {
                    #expect(error.code == .notFound && error.status == 404)
                }
                let entry = try #require(
                    try await phone.activity().entries.first { $0.type == "signin.succeeded" },
                    "the newest sign-in: the other device's"
                )
                var events = phone.sessionEvents().makeAsyncIterator()
                #expect(await events.next() == .initialSession(mine.tokens.identity))
                let ended = try await phone.reportNotMe(eventID: entry.id)
                #expect(Set(ended) == [mine.tokens.sessionID, theirs.tokens.sessionID])
                #expect(await events.next() == .signedOut(.reportedNotMe))
                #expect(await store.load() == nil)
                await #expect(throws: AuthlogClientError.self) { try await stolen.refresh() }
            }
        }

        @Test func activityPagesNewestFirst() async throws {
            try await ClientTestServer.run { server in
                let client = AuthlogClient(baseURL: server.baseURL)
                let signedIn = try await client.signIn(with: .dev(subject: "kate"))
                try await client.refresh()
                try await client.refresh()
                let first = try await client.activity(limit: 2)
                #expect(first.entries.count == 2)
                let cursor = try #require(first.next)
                let second = try await client.activity(after: cursor, limit: 50)
                let all = first.entries + second.entries
                #expect(Set(all.map(\.id)).count == all.count, "no entry on two pages")
                #expect(zip(all, all.dropFirst()).allSatisfy { $0.time >= $1.time }, "newest first")
                #expect(all.contains { $0.type == "signin.succeeded" && $0.provider == "dev" })
                #expect(Set(signedIn.eventIDs).isSubset(of: Set(all.map(\.id))) || all.count >= 3)
            }
        }
    }
}
