import AuthlogCore
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

/// The state tables besides the projections: nonces, credentials, emails, revocations, notices, user keys.
extension StoreConformanceTests {
    @Test(arguments: StoreKind.allCases)
    func aNonceIsConsumedOncePerProviderUnlessItExpired(kind: StoreKind) async throws {
        guard let store = try await StoreUnderTest.make(kind) else { return }
        let device = SHA256Like.random()
        #expect(try await store.nonces.consume(provider: "apple", hash: device, at: instant(0)) == .accepted)
        #expect(try await store.nonces.consume(provider: "apple", hash: device, at: instant(1)) == .replayed)
        #expect(try await store.nonces.consume(provider: "google", hash: device, at: instant(1)) == .accepted)

        let issued = SHA256Like.random()
        try await store.nonces.recordIssued(hash: issued, at: instant(0), expiresAt: instant(600))
        #expect(try await store.nonces.consume(provider: "apple", hash: issued, at: instant(600)) == .expired)
        #expect(try await store.nonces.consume(provider: "apple", hash: issued, at: instant(700)) == .expired)
        await #expect(throws: (any Error).self, "an issued nonce is recorded once") {
            try await store.nonces.recordIssued(hash: issued, at: instant(0), expiresAt: instant(600))
        }

        let live = SHA256Like.random()
        try await store.nonces.recordIssued(hash: live, at: instant(0), expiresAt: instant(600))
        #expect(try await store.nonces.consume(provider: "kakao", hash: live, at: instant(599)) == .accepted)
        #expect(try await store.nonces.consume(provider: "kakao", hash: live, at: instant(599)) == .replayed)
        #expect(try await store.nonces.consume(provider: "kakao", hash: live, at: instant(601)) == .expired)
        await #expect(throws: (any Error).self, "a nonce hash is a SHA-256") {
            try await store.nonces.consume(provider: "apple", hash: [1, 2, 3], at: instant(0))
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aCredentialIsKeptReplacedAndForgotten(kind: StoreKind) async throws {
        guard let store = try await StoreUnderTest.make(kind) else { return }
        let subject = hashHex("s")
        #expect(try await store.credentials.sealed(provider: "apple", subjectHash: subject) == nil)
        try await store.credentials.save(provider: "apple", subjectHash: subject, sealed: [1, 2], at: instant(0))
        try await store.credentials.save(provider: "apple", subjectHash: subject, sealed: [3], at: instant(1))
        try await store.credentials.save(provider: "github", subjectHash: subject, sealed: [4], at: instant(1))
        #expect(try await store.credentials.sealed(provider: "apple", subjectHash: subject) == [3])
        try await store.credentials.forget(provider: "apple", subjectHash: subject)
        #expect(try await store.credentials.sealed(provider: "apple", subjectHash: subject) == nil)
        #expect(try await store.credentials.sealed(provider: "github", subjectHash: subject) == [4])
    }

    @Test(arguments: StoreKind.allCases)
    func emailOwnersAreExistingUsersInTheOrderTheyWereRecorded(kind: StoreKind) async throws {
        guard let store = try await StoreUnderTest.make(kind) else { return }
        let (first, second, unknown) = (Person(), Person(provider: "google"), Person())
        try await store.events.append(try first.registered(subjectHash: hashHex("1"), at: instant(0)))
        try await store.events.append(try second.registered(subjectHash: hashHex("2"), at: instant(0)))
        let email = hashHex("someone@example.com")
        try await store.emails.record(
            emailHash: email,
            userID: second.userID,
            provider: "google",
            authoritative: true,
            at: instant(1)
        )
        try await store.emails.record(
            emailHash: email,
            userID: first.userID,
            provider: "apple",
            authoritative: false,
            at: instant(2)
        )
        try await store.emails.record(
            emailHash: email,
            userID: first.userID,
            provider: "github",
            authoritative: false,
            at: instant(2)
        )
        try await store.emails.record(
            emailHash: email,
            userID: unknown.userID,
            provider: "apple",
            authoritative: true,
            at: instant(0)
        )
        // Recording again keeps the first recording time.
        try await store.emails.record(
            emailHash: email,
            userID: second.userID,
            provider: "google",
            authoritative: false,
            at: instant(9)
        )
        #expect(
            try await store.emails.owners(of: email)
                == [
                    EmailOwner(userID: second.userID, provider: "google"),
                    EmailOwner(userID: first.userID, provider: "apple"),
                    EmailOwner(userID: first.userID, provider: "github"),
                ]
        )
        try await store.emails.forget(userID: first.userID, provider: "github")
        #expect(try await store.emails.owners(of: email).map(\.provider) == ["google", "apple"])

        try await store.events.append(try second.deleted(at: instant(10)))
        #expect(try await store.emails.owners(of: email) == [EmailOwner(userID: first.userID, provider: "apple")])
        try await store.emails.forgetAll(userID: first.userID)
        #expect(try await store.emails.owners(of: email).isEmpty)
        #expect(try await store.emails.owners(of: hashHex("nobody")).isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func revocationsAreClaimedUnderALeaseUntilFinished(kind: StoreKind) async throws {
        guard let store = try await StoreUnderTest.make(kind) else { return }
        let (gone, alive, held) = (Person(), Person(), Person())
        for person in [gone, alive, held] {
            try await store.events.append(
                try person.registered(subjectHash: hashHex(person.userID.lowercased), at: instant(0))
            )
        }
        try await store.events.append(try gone.deleted(at: instant(1)))
        try await store.events.append(try held.deleted(at: instant(1)))
        let item = ProviderRevocationItem(
            userID: gone.userID,
            provider: "apple",
            subjectHash: hashHex("g"),
            sealedToken: [7]
        )
        let aliveItem = ProviderRevocationItem(
            userID: alive.userID,
            provider: "apple",
            subjectHash: hashHex("a"),
            sealedToken: [8]
        )
        let heldItem = ProviderRevocationItem(
            userID: held.userID,
            provider: "apple",
            subjectHash: hashHex("h"),
            sealedToken: [9]
        )
        try await store.revocations.enqueue([item, aliveItem], dueAt: instant(10), at: instant(1))
        try await store.revocations.enqueue([heldItem], dueAt: instant(500), at: instant(1))

        #expect(try await store.revocations.claimDue(limit: 10, leaseSeconds: 60, at: instant(9)).isEmpty)
        #expect(
            try await store.revocations.claimDue(limit: 10, leaseSeconds: 60, at: instant(10)) == [item],
            "only deleted users' due items"
        )
        #expect(try await store.revocations.claimDue(limit: 10, leaseSeconds: 60, at: instant(69)).isEmpty, "leased")
        #expect(
            try await store.revocations.claimDue(limit: 10, leaseSeconds: 60, at: instant(70)) == [item],
            "the lease ran out"
        )

        try await store.revocations.finish(item, result: .queued, detail: "503", nextAttemptAt: instant(200))
        #expect(try await store.revocations.claimDue(limit: 10, leaseSeconds: 60, at: instant(199)).isEmpty)
        var retried = item
        retried.attempts = 1
        #expect(try await store.revocations.claimDue(limit: 10, leaseSeconds: 60, at: instant(200)) == [retried])

        try await store.revocations.finish(item, result: .revoked, detail: nil, nextAttemptAt: instant(300))
        try await store.revocations.finish(item, result: .queued, detail: nil, nextAttemptAt: instant(300))
        try await store.revocations.enqueue([item], dueAt: instant(300), at: instant(300))
        let later = try await store.revocations.claimDue(limit: 10, leaseSeconds: 60, at: instant(600))
        #expect(later == [heldItem], "a finished item stays finished, even when queued again")
        #expect(try await store.revocations.claimDue(limit: 10, leaseSeconds: 60, at: instant(10_000)).count == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func aNoticeIsClaimedOnceUntilReleased(kind: StoreKind) async throws {
        guard let store = try await StoreUnderTest.make(kind) else { return }
        #expect(try await store.notices.claim(provider: "apple", noticeID: "n1", at: instant(0)))
        #expect(try await store.notices.claim(provider: "apple", noticeID: "n1", at: instant(1)) == false)
        #expect(try await store.notices.claim(provider: "kakao", noticeID: "n1", at: instant(1)))
        try await store.notices.release(provider: "apple", noticeID: "n1")
        #expect(try await store.notices.claim(provider: "apple", noticeID: "n1", at: instant(2)))
        try await store.notices.release(provider: "apple", noticeID: "unknown")
    }

    @Test(arguments: StoreKind.allCases)
    func theFirstUserKeyIsKeptUntilDestroyed(kind: StoreKind) async throws {
        guard let store = try await StoreUnderTest.make(kind) else { return }
        let user = UUID()
        #expect(try await store.userKeys.wrappedKey(for: user) == nil)
        #expect(try await store.userKeys.keepFirst([1, 1], for: user, at: instant(0)) == [1, 1])
        #expect(try await store.userKeys.keepFirst([2, 2], for: user, at: instant(1)) == [1, 1])
        #expect(try await store.userKeys.wrappedKey(for: user) == [1, 1])
        try await store.userKeys.destroy(for: user)
        #expect(try await store.userKeys.wrappedKey(for: user) == nil)
        #expect(try await store.userKeys.keepFirst([3], for: user, at: instant(2)) == [3])
    }
}
