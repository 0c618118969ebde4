import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

/// DPoP proofs already accepted (issue 39): each is recorded once however many processes ask, and forgotten
/// once its lifetime is over.
extension StoreConformanceTests {
    @Test(arguments: StoreKind.allCases)
    func aDPoPProofIsRecordedOnceAndPurgedAfterItsLifetime(kind: StoreKind) async throws {
        guard let store = try await StoreUnderTest.make(kind) else { return }
        let proof = SHA256Like.random()
        let other = SHA256Like.random()
        #expect(try await store.dpopProofs.recordOnce(proofHash: proof, expiresAt: instant(60)))
        #expect(try await !store.dpopProofs.recordOnce(proofHash: proof, expiresAt: instant(61)), "a replay")
        #expect(try await store.dpopProofs.recordOnce(proofHash: other, expiresAt: instant(120)))
        // Only proofs whose lifetime ended before the cutoff go; the other stays and is still a replay.
        #expect(try await store.dpopProofs.purge(before: instant(60)) == 0)
        #expect(try await store.dpopProofs.purge(before: instant(61)) == 1)
        #expect(try await !store.dpopProofs.recordOnce(proofHash: other, expiresAt: instant(120)))
        await #expect(throws: (any Error).self, "a proof hash is a SHA-256") {
            try await store.dpopProofs.recordOnce(proofHash: [1, 2, 3], expiresAt: instant(0))
        }
    }

    /// A command that acts on a proof records it with its events: a replay fails the command alone and stores
    /// nothing of it, a command refused for its expected version records no proof, and the ledger sees what
    /// commands recorded (one table).
    @Test(arguments: StoreKind.allCases)
    func aCommandRecordsItsProofWithItsEventsOrNothing(kind: StoreKind) async throws {
        guard let store = try await StoreUnderTest.make(kind) else { return }
        let user = Person()
        let session = UUID()
        let claim = DPoPProofClaim(proofHash: SHA256Like.random(), expiresAt: instant(60))
        let stream = Person.sessionStream(session)
        try await store.events.append(AppendCommand(events: [try user.signedIn(session, at: instant(0))]))
        let late = AppendCommand(
            events: [try Self.reauthenticated(user, session, at: instant(1))],
            expectedVersions: [stream: .exactly(7)],
            dpopProof: claim
        )
        await #expect(throws: WrongExpectedVersion.self) { try await store.events.append(late) }
        let first = AppendCommand(
            events: [try Self.reauthenticated(user, session, at: instant(2))],
            expectedVersions: [stream: .exactly(1)],
            dpopProof: claim
        )
        try await store.events.append(first)
        let replay = AppendCommand(events: [try Self.reauthenticated(user, session, at: instant(3))], dpopProof: claim)
        let other = AppendCommand(events: [try Self.reauthenticated(user, session, at: instant(4))])
        let results = await store.events.appendEach([replay, other])
        #expect(throws: DPoPProofReplayed.self) { try results[0].get() }
        #expect((try? results[1].get()) != nil, "the other command of the batch is stored")
        #expect(try await store.sessions.session(session) != nil)
        #expect(try await !store.dpopProofs.recordOnce(proofHash: claim.proofHash, expiresAt: instant(60)))
        let fresh = SHA256Like.random()
        #expect(try await store.dpopProofs.recordOnce(proofHash: fresh, expiresAt: instant(60)))
        let recorded = AppendCommand(
            events: [try Self.reauthenticated(user, session, at: instant(5))],
            dpopProof: DPoPProofClaim(proofHash: fresh, expiresAt: instant(60))
        )
        await #expect(throws: DPoPProofReplayed.self, "a proof the ledger recorded") {
            try await store.events.append(recorded)
        }
    }

    static func reauthenticated(_ user: Person, _ session: UUID, at time: Timestamp) throws -> EventEnvelope {
        try user.inSession(
            session,
            with: SessionReauthenticated(method: "id_token", subjectHash: hashHex("s")),
            at: time
        )
    }

    /// Two processes' writers acting on one proof at once: exactly one command is stored.
    @Test func aProofRecordedByCommandsOfTwoProcessesAtOnceIsTakenOnce() async throws {
        guard TestDatabase.isAvailable else { return }
        let database = try await TestDatabase.make()
        let stores = [
            PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo, maximumConnections: 4)),
            PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo, maximumConnections: 4)),
        ]
        let user = Person()
        let claims = (0..<20).map { _ in DPoPProofClaim(proofHash: SHA256Like.random(), expiresAt: instant(60)) }
        let stored = try await withThrowingTaskGroup(of: Bool.self) { group in
            for claim in claims {
                for store in stores {
                    let command = AppendCommand(events: [try user.signedIn(UUID(), at: instant(0))], dpopProof: claim)
                    group.addTask {
                        do {
                            try await store.append(command)
                            return true
                        } catch is DPoPProofReplayed {
                            return false
                        }
                    }
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(stored == claims.count, "each proof taken by exactly one of the two processes' commands")
    }

    /// Two `serve` processes are two pools over one database: a proof accepted through one is a replay
    /// through the other, also when both ask at once.
    @Test func aDPoPProofAcceptedByOneProcessIsAReplayForAnother() async throws {
        guard TestDatabase.isAvailable else { return }
        let database = try await TestDatabase.make()
        let first = DPoPProofStore(pool: ConnectionPool(conninfo: database.conninfo, maximumConnections: 4))
        let second = DPoPProofStore(pool: ConnectionPool(conninfo: database.conninfo, maximumConnections: 4))
        let proofs = (0..<50).map { _ in SHA256Like.random() }
        let accepted = try await withThrowingTaskGroup(of: Bool.self) { group in
            for proof in proofs {
                for store in [first, second] {
                    group.addTask { try await store.recordOnce(proofHash: proof, expiresAt: instant(60)) }
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(accepted == proofs.count, "each proof accepted by exactly one of the two processes")
    }
}
