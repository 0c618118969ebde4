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
