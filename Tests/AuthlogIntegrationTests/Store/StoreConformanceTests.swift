import AuthlogCore
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

/// One behaviour, two stores: every test runs against `PostgresEventStore` with the Store's ports over a
/// fresh database, and against `InMemoryStores`, and asserts what both must share.
@Suite
struct StoreConformanceTests {
    @Test(arguments: StoreKind.allCases)
    func aSigninIsReadBackThroughThePorts(kind: StoreKind) async throws {
        guard let store = try await StoreUnderTest.make(kind) else { return }
        let user = Person()
        let session = UUID()
        let token = IssuedToken(session: session, expiresAt: instant(86_400))
        let subject = hashHex("apple-subject")
        let result = try await store.events.append(
            AppendCommand(
                events: [
                    try user.registered(subjectHash: subject, at: instant(0)),
                    try user.signedIn(session, at: instant(0)),
                    try user.issued(token, at: instant(1)),
                ],
                expectedVersions: [user.userStream: .noStream, Person.sessionStream(session): .noStream]
            )
        )
        #expect(result.events.map(\.streamVersion) == [1, 1, 2])
        #expect(result.events.allSatisfy { !$0.wasAlreadyStored })

        let expected = SessionRecord(
            sessionID: session,
            userID: user.userID,
            provider: "apple",
            clientID: "com.example.app",
            kind: .rememberMe,
            state: .active,
            startedAt: instant(0),
            lastSeenAt: instant(1),
            authenticatedAt: instant(0),
            endReason: nil,
            userIsActive: true
        )
        #expect(try await store.sessions.session(session) == expected)
        #expect(try await store.sessions.session(UUID()) == nil)
        let identity = IdentityRecord(
            provider: "apple",
            subjectHash: subject,
            userID: user.userID,
            isReleased: false,
            userIsActive: true
        )
        let found = try await store.sessions.identities(provider: "apple", subjectHashes: [subject, hashHex("other")])
        #expect(found == [subject: identity])
        #expect(try await store.sessions.identities(provider: "google", subjectHashes: [subject]).isEmpty)
        #expect(try await store.sessions.identities(of: user.userID) == [identity])

        let record = try #require(try await store.sessions.refreshToken(hash: token.hash))
        #expect(record.tokenID == token.tokenID && record.familyID == token.familyID)
        #expect(record.state == .active && record.expiresAt == token.expiresAt)
        #expect(record.session == expected)
        #expect(record.sessionVersion == 2)
        #expect(try await store.sessions.refreshToken(hash: SHA256Like.random()) == nil)

        let active = try await store.sessions.activeSessions(of: user.userID, provider: nil)
        #expect(active.map(\.session) == [expected] && active.map(\.version) == [2])
        #expect(try await store.sessions.userExists(user.userID))
        #expect(try await store.sessions.userExists(UUID()) == false)
        #expect(await store.sessions.isReachable())
    }

    @Test(arguments: StoreKind.allCases)
    func expectedVersionsAreCheckedBeforeAnythingIsStored(kind: StoreKind) async throws {
        guard let store = try await StoreUnderTest.make(kind) else { return }
        let apple = StreamName(category: "signin", id: "apple")
        try await store.events.append(failedSignin(provider: "apple"))

        let user = Person()
        let session = UUID()
        await #expect(throws: WrongExpectedVersion.self) {
            try await store.events.append(
                AppendCommand(
                    events: [try user.signedIn(session, at: instant(0)), failedSignin(provider: "apple")],
                    expectedVersions: [apple: .noStream]
                )
            )
        }
        #expect(try await store.sessions.session(session) == nil, "nothing of the failed command is stored")
        await #expect(throws: WrongExpectedVersion.self) {
            try await store.events.append(failedSignin(provider: "apple"), expecting: .exactly(5))
        }
        let second = try await store.events.append(failedSignin(provider: "apple"), expecting: .exactly(1))
        #expect(second.events.map(\.streamVersion) == [2])
        let fresh = try await store.events.append(try user.signedIn(session, at: instant(0)), expecting: .noStream)
        #expect(fresh.events.map(\.streamVersion) == [1], "the failed command left the session stream empty")
        #expect(try await store.sessions.session(session)?.state == .active)

        var pinned = failedSignin(provider: "apple")
        pinned.streamVersion = 7
        let error = await #expect(throws: WrongExpectedVersion.self) {
            try await store.events.append(AppendCommand(events: [failedSignin(provider: "google"), pinned]))
        }
        #expect(error?.eventIndex == 1)
        pinned.streamVersion = 3
        #expect(try await store.events.append(pinned).events.map(\.streamVersion) == [3])
        let google = try await store.events.append(failedSignin(provider: "google"), expecting: .noStream)
        #expect(google.events.map(\.streamVersion) == [1], "the command with the wrong pinned version stored nothing")
    }

    @Test(arguments: StoreKind.allCases)
    func anInvalidEventFailsTheCommandWithItsIndex(kind: StoreKind) async throws {
        guard let store = try await StoreUnderTest.make(kind) else { return }
        let misplaced = EventEnvelope(
            stream: StreamName(category: "signin", id: "apple"),
            type: .signinFailed,
            outcome: .failure,
            reason: "expired",
            provider: "google",
            data: .object([(name: "reason", value: .string("expired"))])
        )
        let error = await #expect(throws: InvalidEvent.self) {
            try await store.events.append(AppendCommand(events: [failedSignin(provider: "kakao"), misplaced]))
        }
        #expect(error?.eventIndex == 1)
        let kakao = try await store.events.append(failedSignin(provider: "kakao"), expecting: .noStream)
        #expect(kakao.events.map(\.streamVersion) == [1], "the valid event of the invalid command was not stored")
    }

    @Test(arguments: StoreKind.allCases)
    func replayingAnEventIDIsIdempotent(kind: StoreKind) async throws {
        guard let store = try await StoreUnderTest.make(kind) else { return }
        let user = Person()
        let session = UUID()
        let signin = try user.signedIn(session, at: instant(0))
        let first = try await store.events.append(signin)
        let again = try await store.events.append(signin)
        #expect(first.events.map(\.wasAlreadyStored) == [false])
        #expect(again.events.map(\.wasAlreadyStored) == [true])
        #expect(again.events.map(\.streamVersion) == [1] && again.events.map(\.eventID) == [signin.eventID])

        let token = IssuedToken(session: session, expiresAt: instant(86_400))
        let mixed = try await store.events.append(
            AppendCommand(events: [signin, try user.issued(token, at: instant(5))])
        )
        #expect(mixed.events.map(\.wasAlreadyStored) == [true, false])
        #expect(mixed.events.map(\.streamVersion) == [1, 2])
        let session2 = try await store.sessions.activeSessions(of: user.userID, provider: nil)
        #expect(session2.map(\.version) == [2], "the replay did not advance the stream")
        #expect(session2.map(\.session.lastSeenAt) == [instant(5)])
    }

    @Test(arguments: StoreKind.allCases)
    func appendEachGivesEachCommandItsOwnResult(kind: StoreKind) async throws {
        guard let store = try await StoreUnderTest.make(kind) else { return }
        let invalid = EventEnvelope(
            stream: StreamName(category: "signin", id: "apple"),
            type: .signinFailed,
            outcome: .success,
            provider: "apple",
            data: .object([(name: "reason", value: .string("expired"))])
        )
        let results = await store.events.appendEach([
            AppendCommand(failedSignin(provider: "apple")),
            AppendCommand(failedSignin(provider: "apple"), expecting: .noStream),
            AppendCommand(invalid),
            AppendCommand(failedSignin(provider: "apple"), expecting: .exactly(1)),
        ])
        #expect(results.count == 4)
        #expect(try results[0].get().events.map(\.streamVersion) == [1])
        #expect(throws: WrongExpectedVersion.self) { try results[1].get() }
        let invalidError = #expect(throws: InvalidEvent.self) { try results[2].get() }
        #expect(invalidError?.eventIndex == 0)
        #expect(try results[3].get().events.map(\.streamVersion) == [2])
    }

    @Test(arguments: StoreKind.allCases)
    func rotationSpendsTheOldTokenAndReuseRevokesTheFamily(kind: StoreKind) async throws {
        guard let store = try await StoreUnderTest.make(kind) else { return }
        let user = Person()
        let session = UUID()
        let first = IssuedToken(session: session, expiresAt: instant(86_400))
        let second = first.next(expiresAt: instant(86_500))
        try await store.events.append(
            AppendCommand(events: [try user.signedIn(session, at: instant(0)), try user.issued(first, at: instant(0))])
        )
        try await store.events.append(try user.refreshed(first, into: second, at: instant(100)), expecting: .exactly(2))
        #expect(try await store.sessions.refreshToken(hash: first.hash)?.state == .rotated)
        let current = try #require(try await store.sessions.refreshToken(hash: second.hash))
        #expect(current.state == .active && current.tokenID == second.tokenID && current.familyID == first.familyID)
        #expect(current.expiresAt == instant(86_500) && current.sessionVersion == 3)
        #expect(current.session.lastSeenAt == instant(100))

        try await store.events.append(try user.reused(first, at: instant(200)), expecting: .exactly(3))
        #expect(try await store.sessions.refreshToken(hash: first.hash)?.state == .revoked)
        #expect(try await store.sessions.refreshToken(hash: second.hash)?.state == .revoked)
        let ended = try #require(try await store.sessions.session(session))
        #expect(ended.state == .revoked && ended.endReason == "reuse" && !ended.isUsable)
        #expect(try await store.sessions.activeSessions(of: user.userID, provider: nil).isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func revokingATokenEndsItsFamilyOnlyWhenTheEventSaysSo(kind: StoreKind) async throws {
        guard let store = try await StoreUnderTest.make(kind) else { return }
        let user = Person()
        let (one, two) = (UUID(), UUID())
        let tokenOne = IssuedToken(session: one, expiresAt: instant(86_400))
        let tokenTwo = IssuedToken(session: two, expiresAt: instant(86_400))
        for (session, token) in [(one, tokenOne), (two, tokenTwo)] {
            try await store.events.append(
                AppendCommand(events: [
                    try user.signedIn(session, at: instant(0)), try user.issued(token, at: instant(0)),
                ])
            )
        }
        try await store.events.append(try user.revoked(tokenOne, endingFamily: false, at: instant(10)))
        #expect(try await store.sessions.refreshToken(hash: tokenOne.hash)?.state == .revoked)
        #expect(try await store.sessions.session(one)?.state == .active)

        try await store.events.append(try user.revoked(tokenTwo, endingFamily: true, at: instant(20)))
        #expect(try await store.sessions.refreshToken(hash: tokenTwo.hash)?.state == .revoked)
        let ended = try await store.sessions.session(two)
        #expect(ended?.state == .revoked && ended?.endReason == "token_revoked")
    }

    @Test(arguments: StoreKind.allCases)
    func sessionsEndOnceInTheStateOfTheirEndingEvent(kind: StoreKind) async throws {
        guard let store = try await StoreUnderTest.make(kind) else { return }
        let user = Person()
        let sessions = (0..<5).map { _ in UUID() }
        var tokens: [IssuedToken] = []
        for (index, session) in sessions.enumerated() {
            let token = IssuedToken(session: session, expiresAt: instant(86_400))
            tokens.append(token)
            try await store.events.append(
                AppendCommand(
                    events: [
                        try user.signedIn(session, at: instant(Int64(index))),
                        try user.issued(token, at: instant(Int64(index))),
                    ]
                )
            )
        }
        try await store.events.append(
            try user.inSession(sessions[0], with: SessionLoggedOut(scope: .this), at: instant(10))
        )
        try await store.events.append(
            try user.inSession(sessions[1], with: SessionRevoked(reason: .admin, actor: "admin:test"), at: instant(11))
        )
        try await store.events.append(
            try user.inSession(sessions[2], with: SessionExpired(limit: .idle), at: instant(12))
        )
        // Ending an ended session, or using it, changes nothing.
        try await store.events.append(
            try user.inSession(sessions[0], with: SessionRevoked(reason: .admin, actor: "admin:test"), at: instant(13))
        )
        try await store.events.append(try user.issued(tokens[0].next(expiresAt: instant(90_000)), at: instant(14)))

        let states = try await sessions.asyncMap { try await store.sessions.session($0) }
        #expect(states[0]?.state == .loggedOut && states[0]?.endReason == "logout")
        #expect(states[0]?.lastSeenAt == instant(0), "an ended session is not touched")
        #expect(states[1]?.state == .revoked && states[1]?.endReason == "admin")
        #expect(states[2]?.state == .expired && states[2]?.endReason == "idle")
        for token in tokens.prefix(3) {
            #expect(try await store.sessions.refreshToken(hash: token.hash)?.state == .revoked)
        }
        #expect(
            try await store.sessions.activeSessions(of: user.userID, provider: nil).map(\.session.sessionID) == [
                sessions[3], sessions[4],
            ]
        )

        try await store.events.append(
            try user.inSession(sessions[3], with: SessionLoggedOut(scope: .all), at: instant(20))
        )
        let after = try await sessions.asyncMap { try await store.sessions.session($0) }
        #expect(after[3]?.state == .loggedOut && after[3]?.endReason == "logout_all")
        #expect(after[4]?.state == .loggedOut && after[4]?.endReason == "logout_all")
        #expect(after[1]?.state == .revoked, "logging out everywhere leaves ended sessions as they ended")
        #expect(try await store.sessions.refreshToken(hash: tokens[4].hash)?.state == .revoked)
    }

    @Test(arguments: StoreKind.allCases)
    func consentRevocationEndsOnlyThatProvidersSessions(kind: StoreKind) async throws {
        guard let store = try await StoreUnderTest.make(kind) else { return }
        let user = Person()
        let (apple, google) = (UUID(), UUID())
        let appleToken = IssuedToken(session: apple, expiresAt: instant(86_400))
        try await store.events.append(
            AppendCommand(events: [
                try user.signedIn(apple, at: instant(0)), try user.issued(appleToken, at: instant(0)),
            ])
        )
        try await store.events.append(try user.signedIn(google, provider: "google", at: instant(1)))
        try await store.events.append(try user.consentRevoked(provider: "apple", at: instant(10)))
        let ended = try await store.sessions.session(apple)
        #expect(ended?.state == .revoked && ended?.endReason == "provider_consent_revoked")
        #expect(try await store.sessions.refreshToken(hash: appleToken.hash)?.state == .revoked)
        #expect(try await store.sessions.session(google)?.state == .active)
    }

    @Test(arguments: StoreKind.allCases)
    func deletingAUserReleasesItsIdentitiesAndEndsItsSessions(kind: StoreKind) async throws {
        guard let store = try await StoreUnderTest.make(kind) else { return }
        let user = Person()
        let session = UUID()
        let (appleSubject, googleSubject, gitlabSubject) = (hashHex("a"), hashHex("g"), hashHex("l"))
        try await store.events.append(try user.registered(subjectHash: appleSubject, at: instant(0)))
        try await store.events.append(try user.linked(provider: "google", subjectHash: googleSubject, at: instant(5)))
        try await store.events.append(try user.linked(provider: "gitlab", subjectHash: gitlabSubject, at: instant(6)))
        try await store.events.append(try user.unlinked(provider: "gitlab", subjectHash: gitlabSubject, at: instant(7)))
        try await store.events.append(try user.signedIn(session, at: instant(8)))
        #expect(try await store.sessions.identities(of: user.userID).map(\.provider) == ["apple", "google"])
        #expect(try await store.sessions.identities(provider: "gitlab", subjectHashes: [gitlabSubject]).isEmpty)

        try await store.events.append(try user.deleted(at: instant(20)))
        #expect(try await store.sessions.identities(of: user.userID).isEmpty)
        let released = try await store.sessions.identities(provider: "apple", subjectHashes: [appleSubject])
        #expect(
            released[appleSubject]
                == IdentityRecord(
                    provider: "apple",
                    subjectHash: appleSubject,
                    userID: user.userID,
                    isReleased: true,
                    userIsActive: false
                )
        )
        let ended = try await store.sessions.session(session)
        #expect(ended?.state == .revoked && ended?.endReason == "account_deleted" && ended?.userIsActive == false)
        #expect(try await store.sessions.userExists(user.userID), "a deleted user was still registered")

        // The first link of a key wins: a new user registering under the same subject hash does not take the row.
        let newcomer = Person()
        try await store.events.append(try newcomer.registered(subjectHash: appleSubject, at: instant(30)))
        let row = try await store.sessions.identities(provider: "apple", subjectHashes: [appleSubject])[appleSubject]
        #expect(row?.userID == user.userID && row?.isReleased == true)
        #expect(try await store.sessions.identities(of: newcomer.userID).isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func activeSessionsFilterByProviderOldestFirst(kind: StoreKind) async throws {
        guard let store = try await StoreUnderTest.make(kind) else { return }
        let user = Person()
        let other = Person()
        let ids = (0..<4).map { _ in UUID() }
        try await store.events.append(try user.signedIn(ids[2], at: instant(20)))
        try await store.events.append(try user.signedIn(ids[0], at: instant(0)))
        try await store.events.append(try user.signedIn(ids[1], provider: "google", at: instant(10)))
        try await store.events.append(try user.signedIn(ids[3], at: instant(30)))
        try await store.events.append(try user.inSession(ids[3], with: SessionLoggedOut(scope: .this), at: instant(31)))
        try await store.events.append(try other.signedIn(UUID(), at: instant(5)))
        try await store.events.append(
            try user.issued(IssuedToken(session: ids[0], expiresAt: instant(86_400)), at: instant(40))
        )

        let all = try await store.sessions.activeSessions(of: user.userID, provider: nil)
        #expect(all.map(\.session.sessionID) == [ids[0], ids[1], ids[2]])
        #expect(all.map(\.version) == [2, 1, 1])
        let apple = try await store.sessions.activeSessions(of: user.userID, provider: "apple")
        #expect(apple.map(\.session.sessionID) == [ids[0], ids[2]])
        #expect(try await store.sessions.activeSessions(of: user.userID, provider: "kakao").isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func expiryFindsSessionsPastTheirAbsoluteOrIdleLifetime(kind: StoreKind) async throws {
        guard let store = try await StoreUnderTest.make(kind) else { return }
        let lifetimes = SessionLifetimes(
            rememberMe: .init(absolute: 1000, idle: 100),
            plain: .init(absolute: 500, idle: 50)
        )
        let user = Person()
        let (old, idle, fresh, ended) = (UUID(), UUID(), UUID(), UUID())
        try await store.events.append(try user.signedIn(old, at: instant(0)))
        try await store.events.append(
            try user.issued(IssuedToken(session: old, expiresAt: instant(86_400)), at: instant(950))
        )
        try await store.events.append(try user.signedIn(idle, rememberMe: false, at: instant(900)))
        try await store.events.append(try user.signedIn(fresh, at: instant(950)))
        try await store.events.append(try user.signedIn(ended, at: instant(0)))
        try await store.events.append(try user.inSession(ended, with: SessionLoggedOut(scope: .this), at: instant(1)))

        let due = try await store.expiry.due(at: instant(1000), lifetimes: lifetimes, limit: 10)
        #expect(due.map(\.session.sessionID) == [idle, old], "least recently seen first")
        #expect(due.map(\.limit) == [.idle, .absolute])
        #expect(due.map(\.version) == [1, 2])
        #expect(
            try await store.expiry.due(at: instant(1000), lifetimes: lifetimes, limit: 1).map(\.session.sessionID) == [
                idle
            ]
        )
        #expect(try await store.expiry.due(at: instant(940), lifetimes: lifetimes, limit: 10).isEmpty)
    }
}

extension Sequence {
    /// The results of `transform` on each element, in order, one after another.
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
