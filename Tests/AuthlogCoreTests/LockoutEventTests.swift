import AuthlogCore
import Foundation
import Testing

/// The lockout's events: what the reducer makes of them, and what validation refuses.
struct LockoutEventTests {
    private let at = Timestamp(microsecondsSinceEpoch: 1_795_266_374_000_000)
    private let hash = String(repeating: "ab", count: 32)

    private func failed(reason: String, subjectHash: String?, ingested: Bool = false) throws -> EventEnvelope {
        var event = try EventEnvelope(
            SigninFailed(reason: reason, method: "id_token", subjectHash: subjectHash),
            stream: StreamName(category: "signin", id: "google"),
            occurredAt: self.at,
            outcome: .failure,
            reason: reason,
            provider: "google"
        )
        if ingested, case .object(var members) = event.data {
            members.append(("ingested_by", .string("key:crm")))
            event.data = .object(members)
        }
        return event
    }

    private func locked(level: Int = 1, until: String? = nil, stream: StreamName? = nil) throws -> EventEnvelope {
        try EventEnvelope(
            IdentityLocked(
                subjectHash: self.hash,
                failures: 10,
                windowSeconds: 900,
                level: level,
                lockedUntil: until ?? self.at.adding(seconds: 60).description
            ),
            stream: stream ?? IdentityLockout.streamName(provider: "google", subjectHash: self.hash),
            occurredAt: self.at,
            outcome: .failure,
            reason: "too_many_failures",
            provider: "google"
        )
    }

    @Test func onlyAVouchedFailureCountsAgainstItsIdentity() throws {
        let count = ProjectionChange.countSignin(day: self.at.dayNumber, provider: "google", outcome: .failure)
        #expect(
            try ProjectionReducer.changes(for: self.failed(reason: "expired", subjectHash: self.hash)) == [
                count, .countIdentityFailure(provider: "google", subjectHash: self.hash, at: self.at),
            ]
        )
        #expect(
            try ProjectionReducer.changes(for: self.failed(reason: "invalid_signature", subjectHash: nil)) == [count]
        )
        #expect(
            try ProjectionReducer.changes(for: self.failed(reason: "identity_locked", subjectHash: self.hash)) == [
                count
            ]
        )
        // Another system's events never lock anyone.
        let ingested = try self.failed(reason: "expired", subjectHash: self.hash, ingested: true)
        #expect(try ProjectionReducer.changes(for: ingested) == [count])
    }

    @Test func locksAndUnlocksMoveTheLockoutRow() throws {
        #expect(
            try ProjectionReducer.changes(for: self.locked(level: 2)) == [
                .lockIdentity(
                    provider: "google",
                    subjectHash: self.hash,
                    level: 2,
                    at: self.at,
                    until: self.at.adding(seconds: 60)
                )
            ]
        )
        for cause in IdentityUnlocked.Cause.allCases {
            let unlocked = try EventEnvelope(
                IdentityUnlocked(subjectHash: self.hash, cause: cause, actor: cause == .operator ? "key:ops" : nil),
                stream: IdentityLockout.streamName(provider: "google", subjectHash: self.hash),
                occurredAt: self.at,
                provider: "google"
            )
            try unlocked.validate()
            #expect(
                try ProjectionReducer.changes(for: unlocked) == [
                    .unlockIdentity(
                        provider: "google",
                        subjectHash: self.hash,
                        byOperator: cause == .operator,
                        at: self.at
                    )
                ]
            )
        }
    }

    @Test func aLockMustNameItsIdentitysStreamALevelAndATime() throws {
        try self.locked().validate()
        #expect(throws: EventValidationError(field: "stream", problem: "must be identity-<provider>:<subject_hash>")) {
            try self.locked(stream: IdentityLockout.streamName(provider: "apple", subjectHash: self.hash)).validate()
        }
        #expect(throws: EventValidationError(field: "stream", problem: "must be identity-<provider>:<subject_hash>")) {
            try self.locked(stream: StreamName(category: "identity", id: "google")).validate()
        }
        #expect(throws: EventValidationError(field: "data.level", problem: "must be at least 1")) {
            try self.locked(level: 0).validate()
        }
        #expect(throws: EventValidationError(field: "data.locked_until", problem: "must be an ISO 8601 time")) {
            try self.locked(until: "soon").validate()
        }
    }
}
