import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import Testing

/// ``ConsistencyVerifier`` accepts every proof ``LogProofs`` makes from the sealed log and refuses each
/// tampering: a flipped byte in any proof hash or root, a hash dropped, added or swapped. (Another size with
/// the same proof is not a tampering this can see: RFC 9162's proofs of 4→6 and 4→7 have the same shape, and only
/// the roots tell them apart.)
@Suite(.enabled(if: TestDatabase.isAvailable), .serialized)
struct ConsistencyVerifierTests {
    @Test func proofsOfEveryPairOfSizesVerifyAndEveryTamperingFails() async throws {
        let database = try await TestDatabase.make()
        try await database.connect().execute(
            """
            INSERT INTO authlog.event_records (event_id, stream, stream_version, type, occurred_at, recorded_at,
                outcome, reason, provider, data, schema_version, digest, log_month)
            SELECT gen_random_uuid(), 'signin-apple', n, 'signin.failed', now(), now(), 'failure', 'expired', 'apple',
                   '{"reason": "expired"}', 1, sha256(n::text::bytea), (SELECT month FROM authlog.log_epoch)
            FROM generate_series(1, 70) AS n;
            INSERT INTO authlog.unsealed_events (event_id, digest)
            SELECT event_id, digest FROM authlog.event_records ORDER BY stream_version
            """
        )
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo, maximumConnections: 2))
        try await store.sealPending()
        let connection = try await database.connect()
        var roots: [Int64: [UInt8]] = [:]
        for size in Int64(0)...70 { roots[size] = try await LogProofs.root(size: size, on: connection) }
        var checked = 0
        var refused = 0
        for new in Int64(1)...70 {
            for old in Int64(1)...new {
                let proof = try await LogProofs.consistency(from: old, to: new, on: connection)
                let oldRoot = try #require(roots[old])
                let newRoot = try #require(roots[new])
                #expect(proof.fromRoot == oldRoot && proof.toRoot == newRoot)
                try ConsistencyVerifier.verify(
                    oldSize: old,
                    oldRoot: oldRoot,
                    newSize: new,
                    newRoot: newRoot,
                    proof: proof.hashes
                )
                checked += 1
                for tampered in Self.tamperings(old: old, oldRoot: oldRoot, new: new, newRoot: newRoot, proof.hashes) {
                    #expect(
                        throws: ConsistencyVerifier.Failure.self,
                        "\(old)→\(new): \(tampered.what)"
                    ) {
                        try ConsistencyVerifier.verify(
                            oldSize: tampered.old,
                            oldRoot: tampered.oldRoot,
                            newSize: tampered.new,
                            newRoot: tampered.newRoot,
                            proof: tampered.proof
                        )
                    }
                    refused += 1
                }
            }
        }
        print("consistency proofs verified: \(checked), tamperings refused: \(refused)")
        #expect(checked == 70 * 71 / 2)
    }

    @Test func exactReasons() throws {
        let leaves = (0..<5).map {
            MerkleTree.leafHash(position: Int64($0 + 1), digest: [UInt8](repeating: UInt8($0), count: 32))
        }
        var frontier = MerkleFrontier()
        var roots: [[UInt8]] = [MerkleTree.emptyRoot]
        for leaf in leaves {
            frontier.append(leaf: leaf)
            roots.append(frontier.root)
        }
        // The empty tree is a prefix of every tree, with an empty proof only.
        try ConsistencyVerifier.verify(oldSize: 0, oldRoot: roots[0], newSize: 5, newRoot: roots[5], proof: [])
        #expect(throws: ConsistencyVerifier.Failure.wrongLength) {
            try ConsistencyVerifier.verify(
                oldSize: 0,
                oldRoot: roots[0],
                newSize: 5,
                newRoot: roots[5],
                proof: [leaves[0]]
            )
        }
        // Equal sizes: equal roots and no proof.
        try ConsistencyVerifier.verify(oldSize: 5, oldRoot: roots[5], newSize: 5, newRoot: roots[5], proof: [])
        #expect(throws: ConsistencyVerifier.Failure.newRootMismatch) {
            try ConsistencyVerifier.verify(oldSize: 5, oldRoot: roots[5], newSize: 5, newRoot: roots[4], proof: [])
        }
        #expect(throws: ConsistencyVerifier.Failure.badSizes) {
            try ConsistencyVerifier.verify(oldSize: 5, oldRoot: roots[5], newSize: 4, newRoot: roots[4], proof: [])
        }
        #expect(throws: ConsistencyVerifier.Failure.badSizes) {
            try ConsistencyVerifier.verify(oldSize: -1, oldRoot: roots[0], newSize: 4, newRoot: roots[4], proof: [])
        }
        #expect(throws: ConsistencyVerifier.Failure.badHash) {
            try ConsistencyVerifier.verify(oldSize: 1, oldRoot: [1], newSize: 4, newRoot: roots[4], proof: [])
        }
        #expect(throws: ConsistencyVerifier.Failure.wrongLength) {
            try ConsistencyVerifier.verify(oldSize: 3, oldRoot: roots[3], newSize: 5, newRoot: roots[5], proof: [])
        }
    }

    struct Tampered {
        var what: String
        var old: Int64
        var oldRoot: [UInt8]
        var new: Int64
        var newRoot: [UInt8]
        var proof: [[UInt8]]
    }

    static func tamperings(
        old: Int64,
        oldRoot: [UInt8],
        new: Int64,
        newRoot: [UInt8],
        _ proof: [[UInt8]]
    ) -> [Tampered] {
        let base = Tampered(what: "", old: old, oldRoot: oldRoot, new: new, newRoot: newRoot, proof: proof)
        var cases: [Tampered] = []
        func flip(_ bytes: [UInt8], at index: Int) -> [UInt8] {
            var bytes = bytes
            bytes[index % bytes.count] ^= 0x01
            return bytes
        }
        var oldFlipped = base
        oldFlipped.oldRoot = flip(oldRoot, at: Int(old))
        oldFlipped.what = "old root flipped"
        var newFlipped = base
        newFlipped.newRoot = flip(newRoot, at: Int(new))
        newFlipped.what = "new root flipped"
        cases += [oldFlipped, newFlipped]
        for index in proof.indices {
            var flipped = base
            flipped.proof[index] = flip(proof[index], at: index + 7)
            flipped.what = "proof hash \(index) flipped"
            var dropped = base
            dropped.proof.remove(at: index)
            dropped.what = "proof hash \(index) dropped"
            cases += [flipped, dropped]
        }
        var added = base
        added.proof.append(newRoot)
        added.what = "a hash added"
        cases.append(added)
        if proof.count >= 2 {
            var swapped = base
            swapped.proof.swapAt(0, proof.count - 1)
            if swapped.proof != proof {
                swapped.what = "first and last hashes swapped"
                cases.append(swapped)
            }
        }
        return cases
    }
}
