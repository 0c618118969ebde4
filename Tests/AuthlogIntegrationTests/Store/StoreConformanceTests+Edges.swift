import AuthlogCore
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

/// Concurrent callers, events another system sent, and reads at the edges of the projections.
extension StoreConformanceTests {
    @Test(arguments: StoreKind.allCases)
    func ofConcurrentFirstAppendsToAStreamExactlyOneWins(kind: StoreKind) async throws {
        guard let store = try await StoreUnderTest.make(kind) else { return }
        let user = Person()
        let session = UUID()
        let outcomes = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    guard let signin = try? user.signedIn(session, at: instant(0)) else { return false }
                    return (try? await store.events.append(signin, expecting: .noStream)) != nil
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 }.count == 1)
        let active = try await store.sessions.activeSessions(of: user.userID, provider: nil)
        #expect(active.map(\.version) == [1])
    }

    @Test(arguments: StoreKind.allCases)
    func concurrentFirstKeysAndNonceUsesAgreeOnOneWinner(kind: StoreKind) async throws {
        guard let store = try await StoreUnderTest.make(kind) else { return }
        let user = UUID()
        let nonce = SHA256Like.random()
        let keys = try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for index in 0..<8 {
                group.addTask { try await store.userKeys.keepFirst([UInt8(index)], for: user, at: instant(0)) }
            }
            return try await group.reduce(into: [[UInt8]]()) { $0.append($1) }
        }
        #expect(Set(keys).count == 1, "every caller seals with the stored key")
        #expect(try await store.userKeys.wrappedKey(for: user) == keys.first)
        let uses = try await withThrowingTaskGroup(of: NonceConsumption.self) { group in
            for _ in 0..<8 {
                group.addTask { try await store.nonces.consume(provider: "apple", hash: nonce, at: instant(0)) }
            }
            return try await group.reduce(into: [NonceConsumption]()) { $0.append($1) }
        }
        #expect(uses.filter { $0 == .accepted }.count == 1 && uses.filter { $0 == .replayed }.count == 7)
    }

    @Test(arguments: StoreKind.allCases)
    func eventsAnotherSystemSentAreStoredButGrantNothing(kind: StoreKind) async throws {
        guard let store = try await StoreUnderTest.make(kind) else { return }
        let user = Person()
        let session = UUID()
        var signin = try user.signedIn(session, at: instant(0))
        guard case .object(var members) = signin.data else {
            Issue.record("a payload encodes as an object")
            return
        }
        members.append((name: "ingested_by", value: .string("key:partner")))
        signin.data = .object(members)
        let result = try await store.events.append(signin)
        #expect(result.events.map(\.streamVersion) == [1])
        #expect(try await store.sessions.session(session) == nil)
        #expect(try await store.sessions.activeSessions(of: user.userID, provider: nil).isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func readsKeepToTheRowsTheProjectionsJoin(kind: StoreKind) async throws {
        guard let store = try await StoreUnderTest.make(kind) else { return }
        let user = Person()
        let (session, orphan) = (UUID(), UUID())
        let subject = hashHex("subject")
        try await store.events.append(try user.signedIn(session, at: instant(0)))
        // A session of a user the projections never registered is not usable.
        #expect(try await store.sessions.session(session)?.userIsActive == false)

        try await store.events.append(try user.registered(subjectHash: subject, at: instant(1)))
        #expect(try await store.sessions.session(session)?.isUsable == true)
        #expect(try await store.sessions.identities(provider: "apple", subjectHashes: [subject.uppercased()]).isEmpty)

        // A token of a session that never started is not found.
        let stray = IssuedToken(session: orphan, expiresAt: instant(86_400))
        try await store.events.append(try user.issued(stray, at: instant(2)))
        #expect(try await store.sessions.refreshToken(hash: stray.hash) == nil)

        // Re-authentication moves only the authentication time.
        try await store.events.append(
            try user.inSession(
                session,
                with: SessionReauthenticated(method: "id_token", subjectHash: subject),
                at: instant(50)
            )
        )
        let reauthenticated = try await store.sessions.session(session)
        #expect(reauthenticated?.authenticatedAt == instant(50) && reauthenticated?.lastSeenAt == instant(0))

        // An event id twice in one command is placed once.
        let failed = failedSignin(provider: "github")
        let twice = try await store.events.append(AppendCommand(events: [failed, failed]))
        #expect(twice.events.map(\.streamVersion) == [1, 1])
        #expect(twice.events.map(\.wasAlreadyStored) == [false, false])
        #expect(
            try await store.events.append(failedSignin(provider: "github"), expecting: .exactly(1)).events.count == 1
        )
    }
}
