import AuthlogCore
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

/// A user's recent sign-ins for sign-in alerts (SigninHistoryReads): the same answers from memory and PostgreSQL.
extension StoreConformanceTests {
    @Test(arguments: StoreKind.allCases)
    func recentSigninsAreTheUsersNewestFirstWithWhatTheyRecordedAndTheKey(kind: StoreKind) async throws {
        guard let store = try await StoreUnderTest.make(kind) else { return }
        let (alice, bob) = (Person(), Person())
        try await store.events.append(try alice.registered(subjectHash: hashHex("a"), at: instant(0)))
        try await store.events.append(try bob.registered(subjectHash: hashHex("b"), at: instant(0)))
        #expect(
            try await store.signinHistory.recentSignins(of: alice.userID, limit: 10, devices: 5, areas: 5)
                == RecentSignins()
        )
        let phone = SigninSighting(
            deviceKey: "k-phone",
            deviceFamily: "App on iOS",
            country: "KR",
            region: "11",
            sealedPlace: "sealed-1"
        )
        let laptop = SigninSighting(deviceKey: "k-laptop", deviceFamily: "Firefox on Linux")
        // One sign-in from before sign-in alerts (nothing recorded), two after, a refresh and another user's between.
        try await store.events.append(try alice.signedIn(UUID(), at: instant(1)))
        try await store.events.append(try alice.signedIn(UUID(), sighting: phone, at: instant(3)))
        try await store.events.append(try bob.signedIn(UUID(), sighting: laptop, at: instant(4)))
        let session = UUID()
        let token = IssuedToken(session: session, expiresAt: instant(86_400))
        try await store.events.append(
            AppendCommand(events: [
                try alice.signedIn(session, sighting: laptop, at: instant(5)), try alice.issued(token, at: instant(5)),
            ])
        )
        try await store.events.append(
            try alice.refreshed(token, into: token.next(expiresAt: instant(86_400)), at: instant(6))
        )
        _ = try await store.userKeys.keepFirst([1, 2, 3], for: alice.userID, at: instant(7))

        let recent = try await store.signinHistory.recentSignins(of: alice.userID, limit: 10, devices: 5, areas: 5)
        // Two sign-ins with a sighting (the older one has none), the devices and areas newest first.
        var history = SigninHistory()
        history.signins = 2
        history.devices = [
            .init(key: "k-laptop", family: "", firstSeen: instant(5), lastSeen: instant(5)),
            .init(key: "k-phone", family: "", firstSeen: instant(3), lastSeen: instant(3)),
        ]
        history.areas = [.init(country: "KR", region: "11", lastSeen: instant(3))]
        #expect(recent.history == history)
        #expect(recent.newestSealed == SealedSighting(at: instant(3), sealedPlace: "sealed-1", country: "KR"))
        #expect(recent.wrappedUserKey == [1, 2, 3])
        // The bounds: the newest sign-in only, one device at most.
        let newest = try await store.signinHistory.recentSignins(of: alice.userID, limit: 1, devices: 5, areas: 5)
        #expect(newest.history.devices.map(\.key) == ["k-laptop"] && newest.newestSealed == nil)
        let oneDevice = try await store.signinHistory.recentSignins(of: alice.userID, limit: 10, devices: 1, areas: 0)
        #expect(oneDevice.history.devices.map(\.key) == ["k-laptop"] && oneDevice.history.areas.isEmpty)
        #expect(oneDevice.history.signins == 2)
        let bobs = try await store.signinHistory.recentSignins(of: bob.userID, limit: 10, devices: 5, areas: 5)
        #expect(bobs.history.devices.map(\.key) == ["k-laptop"] && bobs.wrappedUserKey == nil)
        #expect(
            try await store.signinHistory.recentSignins(of: UUID(), limit: 10, devices: 5, areas: 5) == RecentSignins()
        )
        // The sign-in's first read: the identity rows, the linked one with its user's history.
        let found = try await store.signinHistory.identitiesWithHistory(
            provider: alice.provider,
            subjectHashes: [hashHex("a"), hashHex("unknown")],
            limit: 10,
            devices: 5,
            areas: 5
        )
        #expect(found.keys.sorted() == [hashHex("a")])
        #expect(found[hashHex("a")]?.identity.userID == alice.userID)
        #expect(found[hashHex("a")]?.history == recent)
    }

    /// "Not me" disowns a device: the user's sign-ins from it count for nothing in their history, which is then
    /// judged even when nothing is left; the device key a sign-in recorded is read by its event id.
    @Test(arguments: StoreKind.allCases)
    func aDisownedDevicesSigninsAreLeftOutOfTheHistory(kind: StoreKind) async throws {
        guard let store = try await StoreUnderTest.make(kind) else { return }
        let (alice, bob) = (Person(), Person())
        try await store.events.append(try alice.registered(subjectHash: hashHex("a"), at: instant(0)))
        try await store.events.append(try bob.registered(subjectHash: hashHex("b"), at: instant(0)))
        let phone = SigninSighting(deviceKey: "k-phone", deviceFamily: "App on iOS", country: "KR", region: "11")
        let intruder = SigninSighting(
            deviceKey: "k-intruder",
            deviceFamily: "Chrome on Windows",
            country: "JP",
            region: "13",
            sealedPlace: "sealed-jp"
        )
        try await store.events.append(try alice.signedIn(UUID(), sighting: phone, at: instant(1)))
        let intrusion = try alice.signedIn(UUID(), sighting: intruder, at: instant(2))
        try await store.events.append(intrusion)
        try await store.events.append(try bob.signedIn(UUID(), sighting: intruder, at: instant(3)))
        #expect(try await store.signinHistory.deviceKey(ofSignin: intrusion.eventID, of: alice.userID) == "k-intruder")
        #expect(try await store.signinHistory.deviceKey(ofSignin: intrusion.eventID, of: bob.userID) == nil)
        #expect(try await store.signinHistory.deviceKey(ofSignin: UUID(), of: alice.userID) == nil)
        func report(_ keys: [String]?, at time: Int64) throws -> EventEnvelope {
            try EventEnvelope(
                AccountNotMeReported(
                    reportedEventID: intrusion.eventID.lowercased,
                    reportedType: "signin.succeeded",
                    sessionsEnded: [],
                    disownedDeviceKeys: keys
                ),
                stream: StreamName(category: "user", id: alice.userID.lowercased),
                occurredAt: instant(time),
                outcome: .success,
                userID: alice.userID
            )
        }
        try await store.events.append(try report(nil, at: 4))
        let before = try await store.signinHistory.recentSignins(of: alice.userID, limit: 10, devices: 5, areas: 5)
        #expect(before.history.devices.map(\.key) == ["k-intruder", "k-phone"] && !before.history.disowned)
        try await store.events.append(try report(["k-intruder"], at: 5))
        let after = try await store.signinHistory.recentSignins(of: alice.userID, limit: 10, devices: 5, areas: 5)
        var history = SigninHistory()
        history.signins = 1
        history.devices = [.init(key: "k-phone", family: "", firstSeen: instant(1), lastSeen: instant(1))]
        history.areas = [.init(country: "KR", region: "11", lastSeen: instant(1))]
        history.disowned = true
        #expect(after.history == history && after.newestSealed == nil, "no device, place or location of it")
        let found = try await store.signinHistory.identitiesWithHistory(
            provider: alice.provider,
            subjectHashes: [hashHex("a")],
            limit: 10,
            devices: 5,
            areas: 5
        )
        #expect(found[hashHex("a")]?.history == after)
        // Another user's history is theirs: bob's sign-in from the same device is not disowned by alice.
        let bobs = try await store.signinHistory.recentSignins(of: bob.userID, limit: 10, devices: 5, areas: 5)
        #expect(bobs.history.devices.map(\.key) == ["k-intruder"] && !bobs.history.disowned)
        // Disowned sign-ins are left out before the limit: the newest one of alice's is her phone's.
        let one = try await store.signinHistory.recentSignins(of: alice.userID, limit: 1, devices: 5, areas: 5)
        #expect(one.history.devices.map(\.key) == ["k-phone"])
        // A sign-in from the device after the report counts again (it was seen and judged since).
        try await store.events.append(try alice.signedIn(UUID(), sighting: intruder, at: instant(6)))
        let again = try await store.signinHistory.recentSignins(of: alice.userID, limit: 10, devices: 5, areas: 5)
        #expect(again.history.devices.map(\.key) == ["k-intruder", "k-phone"] && again.history.signins == 2)
    }

    @Test(arguments: StoreKind.allCases)
    func aRefreshTokenIsReadWithItsSessionsSigninAndTheKindsItWasFlaggedFor(kind: StoreKind) async throws {
        guard let store = try await StoreUnderTest.make(kind) else { return }
        let alice = Person()
        try await store.events.append(try alice.registered(subjectHash: hashHex("a"), at: instant(0)))
        let (session, other) = (UUID(), UUID())
        let phone = SigninSighting(deviceKey: "k-phone", deviceFamily: "App on iOS", country: "KR", byDeviceID: true)
        let token = IssuedToken(session: session, expiresAt: instant(86_400))
        try await store.events.append(
            AppendCommand(events: [
                try alice.signedIn(session, sighting: phone, at: instant(1)), try alice.issued(token, at: instant(1)),
            ])
        )
        try await store.events.append(try alice.signedIn(other, at: instant(2)))
        // Without asking, nothing is read; asked, the sign-in with nothing flagged yet.
        #expect(try await store.sessions.refreshToken(hash: token.hash)?.sessionSignin == nil)
        #expect(
            try await store.sessions.refreshToken(hash: token.hash, withSessionSignin: true)?.sessionSignin
                == SessionSignin(signin: PastSignin(at: instant(1), sighting: phone))
        )
        func flagged(
            _ kinds: [SigninJudgement.Kind],
            _ decision: SigninAlertDecision,
            session: UUID,
            at time: Int64
        )
            throws -> EventEnvelope
        {
            try EventEnvelope(
                SigninFlagged(
                    judgedEventID: UUID(),
                    judgements: kinds.map { SigninJudgement(kind: $0) },
                    decision: decision
                ),
                stream: StreamName(category: "user", id: alice.userID.lowercased),
                occurredAt: instant(time),
                outcome: decision.admits ? .success : .failure,
                reason: kinds.first?.rawValue,
                provider: alice.provider,
                userID: alice.userID,
                sessionID: session
            )
        }
        // Admitted flags of this session count; a denied one, and another session's, do not.
        try await store.events.append(
            try flagged([.newCountry, .impossibleTravel], .recorded, session: session, at: 3)
        )
        try await store.events.append(try flagged([.newDevice], .denied, session: session, at: 4))
        try await store.events.append(try flagged([.hostingNetwork], .recorded, session: other, at: 5))
        _ = try await store.userKeys.keepFirst([9, 9], for: alice.userID, at: instant(6))
        let read = try #require(
            try await store.sessions.refreshToken(hash: token.hash, withSessionSignin: true)?.sessionSignin
        )
        #expect(read.flaggedKinds == Set<SigninJudgement.Kind>([.newCountry, .impossibleTravel]))
        #expect(read.signin?.sighting == phone && read.wrappedUserKey == [9, 9])
    }
}
