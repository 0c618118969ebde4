import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

/// The identity lockout projection (`identity_lockouts`, migration 0018) read through ``IdentityLockouts``:
/// the same counts, locks and unlocks from PostgreSQL and from memory.
extension StoreConformanceTests {
    static let victim = hashHex("victim-subject")

    /// `signin.failed` of provider `oidc` at `time`, naming `subjectHash` when the provider vouched for it.
    static func failure(
        _ subjectHash: String?,
        reason: String = "expired",
        at time: Timestamp
    ) throws -> EventEnvelope {
        try EventEnvelope(
            SigninFailed(reason: reason, method: "id_token", subjectHash: subjectHash),
            stream: StreamName(category: "signin", id: "oidc"),
            occurredAt: time,
            outcome: .failure,
            reason: reason,
            provider: "oidc"
        )
    }

    static var victimStream: StreamName { IdentityLockout.streamName(provider: "oidc", subjectHash: Self.victim) }

    static func locked(level: Int, at time: Timestamp, until: Timestamp) throws -> EventEnvelope {
        try EventEnvelope(
            IdentityLocked(
                subjectHash: Self.victim,
                failures: 3,
                windowSeconds: 900,
                level: level,
                lockedUntil: until.description
            ),
            stream: Self.victimStream,
            occurredAt: time,
            outcome: .failure,
            reason: "too_many_failures",
            provider: "oidc"
        )
    }

    static func unlocked(_ cause: IdentityUnlocked.Cause, at time: Timestamp) throws -> EventEnvelope {
        try EventEnvelope(
            IdentityUnlocked(subjectHash: Self.victim, cause: cause, actor: cause == .operator ? "key:ops" : nil),
            stream: Self.victimStream,
            occurredAt: time,
            provider: "oidc"
        )
    }

    @Test(arguments: StoreKind.allCases)
    func onlyVouchedFailuresWithinTheWindowAreCounted(kind: StoreKind) async throws {
        guard let store = try await StoreUnderTest.make(kind) else { return }
        try await store.events.append(
            AppendCommand(
                events: [
                    try Self.failure(Self.victim, at: instant(0)),
                    try Self.failure(Self.victim, reason: "nonce_replayed", at: instant(1)),
                    try Self.failure(Self.victim, at: instant(2)),
                    // Not counted: no subject hash (a forged proof), another identity, a refusal while locked.
                    try Self.failure(nil, reason: "invalid_signature", at: instant(2)),
                    try Self.failure(hashHex("bystander"), at: instant(2)),
                    try Self.failure(Self.victim, reason: "identity_locked", at: instant(2)),
                ]
            )
        )
        let all = try await store.lockouts.lockout(
            provider: "oidc",
            subjectHash: Self.victim,
            failuresSince: instant(0)
        )
        #expect(all == IdentityLockout(recentFailures: 3))
        let late = try await store.lockouts.lockout(
            provider: "oidc",
            subjectHash: Self.victim,
            failuresSince: instant(1)
        )
        #expect(late.recentFailures == 2)
        let none = try await store.lockouts.lockout(
            provider: "oidc",
            subjectHash: Self.victim,
            failuresSince: instant(3)
        )
        #expect(none.recentFailures == 0)
        let other = try await store.lockouts.lockout(
            provider: "apple",
            subjectHash: Self.victim,
            failuresSince: instant(0)
        )
        #expect(other == IdentityLockout())
        let bystander = try await store.lockouts.lockout(
            provider: "oidc",
            subjectHash: hashHex("bystander"),
            failuresSince: instant(0)
        )
        #expect(bystander.recentFailures == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func aSigninOfTheIdentityForgetsItsFailures(kind: StoreKind) async throws {
        guard let store = try await StoreUnderTest.make(kind) else { return }
        for second in 0..<3 { try await store.events.append(try Self.failure(Self.victim, at: instant(Int64(second)))) }
        try await store.events.append(try Self.failure(hashHex("bystander"), at: instant(3)))
        let session = UUID()
        try await store.events.append(
            try EventEnvelope(
                SigninSucceeded(method: "id_token", subjectHash: Self.victim, isNewUser: false),
                stream: Person.sessionStream(session),
                occurredAt: instant(4),
                provider: "oidc",
                userID: UUID(),
                sessionID: session
            )
        )
        func failures(_ subjectHash: String) async throws -> Int {
            try await store.lockouts.lockout(provider: "oidc", subjectHash: subjectHash, failuresSince: instant(0))
                .recentFailures
        }
        #expect(try await failures(Self.victim) == 0)
        #expect(try await failures(hashHex("bystander")) == 1)
        try await store.events.append(try Self.failure(Self.victim, at: instant(5)))
        #expect(try await failures(Self.victim) == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func theNewestHundredFailuresAreKept(kind: StoreKind) async throws {
        guard let store = try await StoreUnderTest.make(kind) else { return }
        // Two commands: the second's failures land on a row that holds some already.
        let first = try (0..<60).map { try Self.failure(Self.victim, at: instant(Int64($0))) }
        let second = try (60..<105).map { try Self.failure(Self.victim, at: instant(Int64($0))) }
        try await store.events.append(AppendCommand(events: first))
        try await store.events.append(AppendCommand(events: second))
        func count(since seconds: Int64) async throws -> Int {
            try await store.lockouts.lockout(
                provider: "oidc",
                subjectHash: Self.victim,
                failuresSince: instant(seconds)
            )
            .recentFailures
        }
        #expect(try await count(since: -1) == IdentityLockout.keptFailures)
        #expect(try await count(since: 5) == 100)
        #expect(try await count(since: 50) == 55)
        if let database = store.database {
            #expect(
                try await database.scalar("SELECT max(cardinality(recent_failures)) FROM authlog.identity_lockouts")
                    == Int64(IdentityLockout.keptFailures)
            )
        }
    }

    @Test(arguments: StoreKind.allCases)
    func locksAndUnlocksMoveTheRowAndTheStream(kind: StoreKind) async throws {
        guard let store = try await StoreUnderTest.make(kind) else { return }
        let stream = Self.victimStream
        for second in 0..<3 { try await store.events.append(try Self.failure(Self.victim, at: instant(Int64(second)))) }
        try await store.events.append(
            AppendCommand(
                events: [try Self.locked(level: 1, at: instant(3), until: instant(63))],
                expectedVersions: [stream: .exactly(0)]
            )
        )
        // A second process that read the same version records nothing.
        await #expect(throws: WrongExpectedVersion.self) {
            try await store.events.append(
                AppendCommand(
                    events: [try Self.locked(level: 1, at: instant(3), until: instant(63))],
                    expectedVersions: [stream: .exactly(0)]
                )
            )
        }
        func state() async throws -> IdentityLockout {
            try await store.lockouts.lockout(provider: "oidc", subjectHash: Self.victim, failuresSince: instant(0))
        }
        var locked = try await state()
        #expect(
            locked
                == IdentityLockout(
                    recentFailures: 3,
                    level: 1,
                    lockedAt: instant(3),
                    lockedUntil: instant(63),
                    isLockRecorded: true,
                    streamVersion: 1
                )
        )
        #expect(locked.isLocked(at: instant(62)) && !locked.isLocked(at: instant(63)))
        #expect(locked.hasExpiredUnrecorded(at: instant(63)))

        // Its expiry keeps the failures and the level: the next lock backs off further.
        try await store.events.append(
            AppendCommand(
                events: [try Self.unlocked(.expired, at: instant(70))],
                expectedVersions: [stream: .exactly(1)]
            )
        )
        locked = try await state()
        #expect(!locked.isLockRecorded && locked.level == 1 && locked.recentFailures == 3)
        #expect(locked.lockedUntil == instant(63) && locked.streamVersion == 2)
        #expect(!locked.hasExpiredUnrecorded(at: instant(100)))

        try await store.events.append(
            AppendCommand(
                events: [try Self.locked(level: 2, at: instant(71), until: instant(191))],
                expectedVersions: [stream: .exactly(2)]
            )
        )
        locked = try await state()
        #expect(locked.isLockRecorded && locked.level == 2 && locked.lockedUntil == instant(191))
        // An operator's unlock forgets the failures and the back-off.
        try await store.events.append(
            AppendCommand(
                events: [try Self.unlocked(.operator, at: instant(80))],
                expectedVersions: [stream: .exactly(3)]
            )
        )
        #expect(try await state() == IdentityLockout(streamVersion: 4))
        // An unlock of nothing locked changes nothing.
        try await store.events.append(try Self.unlocked(.operator, at: instant(81)))
        #expect(try await state() == IdentityLockout(streamVersion: 5))
    }

    @Test(arguments: StoreKind.allCases)
    func runOutLocksAreFoundByWhenTheyRanOut(kind: StoreKind) async throws {
        guard let store = try await StoreUnderTest.make(kind) else { return }
        let other = hashHex("other-subject")
        let otherStream = IdentityLockout.streamName(provider: "oidc", subjectHash: other)
        try await store.events.append(try Self.locked(level: 1, at: instant(0), until: instant(60)))
        try await store.events.append(
            try EventEnvelope(
                IdentityLocked(
                    subjectHash: other,
                    failures: 3,
                    windowSeconds: 900,
                    level: 1,
                    lockedUntil: instant(30).description
                ),
                stream: otherStream,
                occurredAt: instant(0),
                outcome: .failure,
                reason: "too_many_failures",
                provider: "oidc"
            )
        )
        #expect(try await store.lockouts.expiredLocks(at: instant(29), limit: 10) == [])
        #expect(
            try await store.lockouts.expiredLocks(at: instant(30), limit: 10) == [
                ExpiredLock(provider: "oidc", subjectHash: other, streamVersion: 1)
            ]
        )
        let both = try await store.lockouts.expiredLocks(at: instant(60), limit: 10)
        #expect(both.map(\.subjectHash) == [other, Self.victim])
        #expect(try await store.lockouts.expiredLocks(at: instant(60), limit: 1).map(\.subjectHash) == [other])
        // Once its expiry is recorded, a lock is no longer found.
        try await store.events.append(
            AppendCommand(
                events: [try Self.unlocked(.expired, at: instant(61))],
                expectedVersions: [Self.victimStream: .exactly(1)]
            )
        )
        #expect(try await store.lockouts.expiredLocks(at: instant(100), limit: 10).map(\.subjectHash) == [other])
    }

    @Test func theLockoutRowsRebuildExactly() async throws {
        guard let store = try await StoreUnderTest.make(.postgres), let database = store.database else { return }
        for second in 0..<105 {
            try await store.events.append(try Self.failure(Self.victim, at: instant(Int64(second))))
        }
        try await store.events.append(try Self.locked(level: 1, at: instant(110), until: instant(170)))
        try await store.events.append(try Self.unlocked(.expired, at: instant(180)))
        try await store.events.append(try Self.failure(hashHex("other"), at: instant(181)))
        let postgres = try #require(store.events as? PostgresEventStore)
        try await postgres.sealPending()
        #expect(try await database.scalar("SELECT count(*) FROM authlog.identity_lockouts") == 2)
        #expect(try await ProjectionRebuilder().check(on: database.connect()) == [])
    }
}
