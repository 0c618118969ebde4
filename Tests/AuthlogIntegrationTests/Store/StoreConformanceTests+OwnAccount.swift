import AuthlogCore
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

/// What a user reads about their own account (OwnAccountReads): the same answers from memory and PostgreSQL.
extension StoreConformanceTests {
    @Test(arguments: StoreKind.allCases)
    func activeSessionDetailsAreNewestFirstWithTheirSignInAndLastRotation(kind: StoreKind) async throws {
        guard let store = try await StoreUnderTest.make(kind) else { return }
        let (alice, bob) = (Person(), Person())
        try await store.events.append(try alice.registered(subjectHash: hashHex("a"), at: instant(0)))
        try await store.events.append(try bob.registered(subjectHash: hashHex("b"), at: instant(0)))
        let (phone, laptop, ended, bobs) = (UUID(), UUID(), UUID(), UUID())
        var signin = try alice.signedIn(phone, at: instant(1))
        signin.ip = IPAddress("192.0.2.1")
        signin.userAgent = "Phone/1.0"
        let first = IssuedToken(session: phone, expiresAt: instant(86_400))
        try await store.events.append(AppendCommand(events: [signin, try alice.issued(first, at: instant(1))]))
        for (session, time) in [(laptop, Int64(10)), (ended, 5)] {
            let token = IssuedToken(session: session, expiresAt: instant(86_400))
            try await store.events.append(
                AppendCommand(events: [
                    try alice.signedIn(session, at: instant(time)), try alice.issued(token, at: instant(time)),
                ])
            )
        }
        try await store.events.append(try bob.signedIn(bobs, at: instant(2)))
        try await store.events.append(
            try alice.refreshed(first, into: first.next(expiresAt: instant(86_400)), at: instant(20))
        )
        try await store.events.append(try alice.inSession(ended, with: SessionLoggedOut(scope: .this), at: instant(30)))

        let details = try await store.ownAccount.activeSessionDetails(of: alice.userID)
        #expect(details.map(\.session.sessionID) == [laptop, phone])
        #expect(details.map(\.lastRefreshedAt) == [nil, instant(20)])
        #expect(details.map { $0.ip?.description } == [nil, "192.0.2.1"])
        #expect(details.map(\.userAgent) == [nil, "Phone/1.0"])
        #expect(try await store.ownAccount.activeSessionDetails(of: UUID()).isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func activityIsTheUsersEventsOfTheTypesNewestFirstAndPagesByPosition(kind: StoreKind) async throws {
        guard let store = try await StoreUnderTest.make(kind) else { return }
        let (alice, bob) = (Person(), Person())
        try await store.events.append(try alice.registered(subjectHash: hashHex("a"), at: instant(0)))
        let session = UUID()
        let token = IssuedToken(session: session, expiresAt: instant(86_400))
        // Two events of one instant: the event id orders them.
        try await store.events.append(
            AppendCommand(events: [
                try alice.signedIn(session, at: instant(1)), try alice.issued(token, at: instant(1)),
            ])
        )
        var next = token
        for second in 2...5 {
            let rotated = next.next(expiresAt: instant(86_400))
            try await store.events.append(try alice.refreshed(next, into: rotated, at: instant(Int64(second))))
            next = rotated
        }
        try await store.events.append(try bob.registered(subjectHash: hashHex("b"), at: instant(3)))
        try await store.events.append(try bob.signedIn(UUID(), at: instant(3)))
        let types = EventType.userActivity
        let all = try await store.ownAccount.activity(of: alice.userID, types: types, before: nil, limit: 100)
        #expect(
            all.map(\.type) == [.tokenRefreshed, .tokenRefreshed, .tokenRefreshed, .tokenRefreshed, .signinSucceeded]
        )
        #expect(all.map(\.occurredAt) == [instant(5), instant(4), instant(3), instant(2), instant(1)])
        #expect(all.allSatisfy { $0.sessionID == session && $0.provider == "apple" && $0.outcome == .success })

        let firstPage = try await store.ownAccount.activity(of: alice.userID, types: types, before: nil, limit: 2)
        #expect(firstPage.map(\.eventID) == all.prefix(2).map(\.eventID))
        let rest = try await store.ownAccount.activity(
            of: alice.userID,
            types: types,
            before: firstPage.last?.position,
            limit: 100
        )
        #expect(rest.map(\.eventID) == all.dropFirst(2).map(\.eventID))
        let issued = try await store.ownAccount.activity(
            of: alice.userID,
            types: [.tokenIssued, .userRegistered],
            before: nil,
            limit: 100
        )
        #expect(issued.map(\.type) == [.tokenIssued, .userRegistered])
        #expect(try await store.ownAccount.activity(of: alice.userID, types: types, before: nil, limit: 0).isEmpty)
    }

    /// One entry by id (`POST /v1/me/activity/{event_id}/not-me`): the user's own, of an activity type, or none.
    @Test(arguments: StoreKind.allCases)
    func anActivityEntryIsTheUsersOwnEventOfAnActivityType(kind: StoreKind) async throws {
        guard let store = try await StoreUnderTest.make(kind) else { return }
        let (alice, bob) = (Person(), Person())
        try await store.events.append(try alice.registered(subjectHash: hashHex("a"), at: instant(0)))
        try await store.events.append(try bob.registered(subjectHash: hashHex("b"), at: instant(0)))
        let session = UUID()
        let signin = try alice.signedIn(session, at: instant(1))
        let issued = try alice.issued(IssuedToken(session: session, expiresAt: instant(86_400)), at: instant(1))
        try await store.events.append(AppendCommand(events: [signin, issued]))
        let types = EventType.userActivity
        let entry = try await store.ownAccount.activityEntry(signin.eventID, of: alice.userID, types: types)
        #expect(entry?.eventID == signin.eventID && entry?.type == .signinSucceeded && entry?.sessionID == session)
        #expect(entry?.occurredAt == instant(1))
        #expect(try await store.ownAccount.activityEntry(signin.eventID, of: bob.userID, types: types) == nil)
        #expect(try await store.ownAccount.activityEntry(issued.eventID, of: alice.userID, types: types) == nil)
        #expect(try await store.ownAccount.activityEntry(UUID(), of: alice.userID, types: types) == nil)
    }
}
