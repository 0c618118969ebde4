import AuthlogClient
import AuthlogTransparency
import Testing

/// ``ConsistencyVerifier`` accepts every proof ``MerkleProof`` plans, for every pair of sizes up to 70, and
/// refuses each tampering: a flipped byte in any proof hash or root, a hash dropped, added or swapped. (Another
/// size with the same proof is not a tampering this can see: RFC 9162's proofs of 4→6 and 4→7 have the same
/// shape, and only the roots tell them apart.) The store's proofs, read from its rows, are checked against it in
/// the server's integration tests.
struct ConsistencyVerifierTests {
    let crypto = PlatformTransparencyCrypto()

    @Test func proofsOfEveryPairOfSizesVerifyAndEveryTamperingFails() throws {
        let tree = MemoryTree(count: 70)
        var checked = 0
        for new in Int64(1)...70 {
            for old in Int64(1)...new {
                let proof = tree.consistency(old: old, new: new)
                let oldRoot = tree.root(size: old)
                let newRoot = tree.root(size: new)
                try ConsistencyVerifier.verify(
                    oldSize: old,
                    oldRoot: oldRoot,
                    newSize: new,
                    newRoot: newRoot,
                    proof: proof,
                    crypto: self.crypto
                )
                checked += 1
                for tampered in Self.tamperings(old: old, oldRoot: oldRoot, new: new, newRoot: newRoot, proof) {
                    #expect(throws: ConsistencyVerifier.Failure.self, "\(old)→\(new): \(tampered.what)") {
                        try ConsistencyVerifier.verify(
                            oldSize: tampered.old,
                            oldRoot: tampered.oldRoot,
                            newSize: tampered.new,
                            newRoot: tampered.newRoot,
                            proof: tampered.proof,
                            crypto: self.crypto
                        )
                    }
                }
            }
        }
        #expect(checked == 70 * 71 / 2)
    }

    @Test func exactReasons() throws {
        let tree = MemoryTree(count: 5)
        let roots = (Int64(0)...5).map(tree.root(size:))
        func verify(_ old: Int64, _ oldRoot: [UInt8], _ new: Int64, _ newRoot: [UInt8], _ proof: [[UInt8]]) throws {
            try ConsistencyVerifier.verify(
                oldSize: old,
                oldRoot: oldRoot,
                newSize: new,
                newRoot: newRoot,
                proof: proof,
                crypto: self.crypto
            )
        }
        // The empty tree is a prefix of every tree, with an empty proof only.
        try verify(0, roots[0], 5, roots[5], [])
        #expect(throws: ConsistencyVerifier.Failure.wrongLength) {
            try verify(0, roots[0], 5, roots[5], [tree.leaves[0]])
        }
        // Equal sizes: equal roots and no proof.
        try verify(5, roots[5], 5, roots[5], [])
        #expect(throws: ConsistencyVerifier.Failure.newRootMismatch) { try verify(5, roots[5], 5, roots[4], []) }
        #expect(throws: ConsistencyVerifier.Failure.badSizes) { try verify(5, roots[5], 4, roots[4], []) }
        #expect(throws: ConsistencyVerifier.Failure.badSizes) { try verify(-1, roots[0], 4, roots[4], []) }
        #expect(throws: ConsistencyVerifier.Failure.badHash) { try verify(1, [1], 4, roots[4], []) }
        #expect(throws: ConsistencyVerifier.Failure.wrongLength) { try verify(3, roots[3], 5, roots[5], []) }
        let proof = tree.consistency(old: 3, new: 5)
        var flipped = roots[3]
        flipped[0] ^= 1
        #expect(throws: ConsistencyVerifier.Failure.oldRootMismatch) { try verify(3, flipped, 5, roots[5], proof) }
        #expect(throws: ConsistencyVerifier.Failure.newRootMismatch) { try verify(3, roots[3], 5, roots[4], proof) }
        #expect(
            "\(ConsistencyVerifier.Failure.oldRootMismatch)" == "the proof does not lead to the old root"
                && "\(ConsistencyVerifier.Failure.wrongLength)" == "the proof has the wrong number of hashes"
        )
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
