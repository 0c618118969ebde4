import AuthlogCore
import AuthlogStore
import AuthlogTesting
import Testing

/// ``ConsistencyProofCheck`` accepts every consistency proof the log makes between sizes 1…40 and refuses
/// each with a flipped byte, a dropped or extra hash, or another or swapped root. (The proof alone does not
/// bind the new size: adjacent sizes can share its shape; the signed checkpoint binds size and root.)
@Suite(.enabled(if: TestDatabase.isAvailable))
struct ConsistencyProofCheckTests {
    @Test func everyProofHoldsAndEveryTamperingFails() async throws {
        let database = try await TestDatabase.make()
        let store = EventStore(pool: ConnectionPool(conninfo: database.conninfo))
        var traffic = TrafficGenerator(seed: 40)
        try await store.append(AppendCommand(events: Array(traffic.events(count: 40).prefix(40))))
        try await store.sealPending()
        let connection = try await database.connect()
        var checked = 0
        for to in Int64(1)...40 {
            for from in Int64(1)...to {
                let proof = try await LogProofs.consistency(from: from, to: to, on: connection)
                func holds(
                    _ hashes: [[UInt8]],
                    _ old: [UInt8] = proof.fromRoot,
                    _ new: [UInt8] = proof.toRoot,
                    from oldSize: Int64 = from,
                    to newSize: Int64 = to
                ) -> Bool {
                    ConsistencyProofCheck.holds(
                        oldSize: oldSize,
                        oldRoot: old,
                        newSize: newSize,
                        newRoot: new,
                        proof: hashes
                    )
                }
                #expect(holds(proof.hashes), "\(from) → \(to)")
                for index in proof.hashes.indices {
                    var flipped = proof.hashes
                    flipped[index][index % 32] ^= 0x01
                    #expect(!holds(flipped), "flipped hash \(index) of \(from) → \(to)")
                }
                var wrongOld = proof.fromRoot
                wrongOld[0] ^= 0x80
                #expect(!holds(proof.hashes, wrongOld), "another old root \(from) → \(to)")
                var wrongNew = proof.toRoot
                wrongNew[31] ^= 0x80
                #expect(!holds(proof.hashes, proof.fromRoot, wrongNew), "another new root \(from) → \(to)")
                if !proof.hashes.isEmpty {
                    #expect(!holds(Array(proof.hashes.dropLast())), "a dropped hash \(from) → \(to)")
                }
                #expect(!holds(proof.hashes + [proof.toRoot]), "an extra hash \(from) → \(to)")
                if from < to {
                    #expect(!holds(proof.hashes, proof.toRoot, proof.fromRoot, from: to, to: from), "swapped")
                }
                checked += 1
            }
        }
        #expect(checked == 820)
    }
}
