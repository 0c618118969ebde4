import AuthlogClient
import AuthlogTransparency
import Testing

/// A multi-leaf proof leads from any set of leaves to the tree's root, lists a single leaf's RFC 9162 inclusion
/// hashes, and every malformed shape gives no root.
struct MultiLeafProofTests {
    let crypto = PlatformTransparencyCrypto()
    let tree = MemoryTree(count: 300)

    /// The proof of `indices` in the tree of `size` leaves, read from the tree.
    func proof(_ indices: [Int64], size: Int64) -> [[UInt8]] {
        MultiLeafProof.ranges(indices: indices, size: size).map(self.tree.hash(of:))
    }

    /// The leaves at `indices` with their hashes.
    func leaves(_ indices: [Int64]) -> [(index: Int64, hash: [UInt8])] {
        indices.map { (index: $0, hash: self.tree.leaves[Int($0)]) }
    }

    func root(_ leaves: [(index: Int64, hash: [UInt8])], size: Int64, proof: [[UInt8]]) -> [UInt8]? {
        MultiLeafProof.root(leaves: leaves, size: size, proof: proof, crypto: self.crypto)
    }

    /// The proof lists the subtrees holding no requested leaf in a left-to-right walk: leaves 1 and 4 of 5 split
    /// at 4, then 2, then 1, so the proof is leaf 0 and leaves 2…3.
    @Test func theProofsOrderIsALeftToRightWalkOfTheSplit() {
        #expect(
            MultiLeafProof.ranges(indices: [1, 4], size: 5) == [
                MerkleProof.Range(start: 0, end: 1), MerkleProof.Range(start: 2, end: 4),
            ]
        )
        #expect(MultiLeafProof.ranges(indices: [0, 1, 2, 3, 4], size: 5).isEmpty)
        #expect(MultiLeafProof.ranges(indices: [4], size: 5) == [MerkleProof.Range(start: 0, end: 4)])
    }

    @Test func randomSetsOfLeavesLeadToTheRootOfTreesOfOneTo300Leaves() throws {
        var random = SeededRandom(seed: 35)
        for size in Int64(1)...300 {
            let root = self.tree.root(size: size)
            for _ in 0..<3 {
                let count = Int.random(in: 1...min(MultiLeafProof.maximumLeaves, Int(size)), using: &random)
                let indices = Array((0..<size).shuffled(using: &random).prefix(count)).sorted()
                let proof = self.proof(indices, size: size)
                #expect(self.root(self.leaves(indices), size: size, proof: proof) == root, "\(indices) of \(size)")
            }
        }
    }

    /// With one leaf the proof has the inclusion proof's hashes, as many, in the walk's order: a sibling on the
    /// left comes before the path below it, one on the right after.
    @Test func oneLeafsProofHoldsItsInclusionProofsHashes() {
        for size in Int64(1)...70 {
            for index in 0..<size {
                let proof = self.proof([index], size: size)
                let inclusion = self.tree.inclusion(index: index, size: size)
                let order: ([UInt8], [UInt8]) -> Bool = { $0.lexicographicallyPrecedes($1) }
                #expect(proof.sorted(by: order) == inclusion.sorted(by: order), "\(index) of \(size)")
                #expect(self.root(self.leaves([index]), size: size, proof: proof) == self.tree.root(size: size))
            }
        }
    }

    @Test func everyMalformedShapeGivesNoRoot() {
        let size: Int64 = 300
        let indices: [Int64] = [3, 70, 71, 200]
        let leaves = self.leaves(indices)
        let proof = self.proof(indices, size: size)
        #expect(self.root(leaves, size: size, proof: proof) == self.tree.root(size: size))
        #expect(self.root(leaves, size: size, proof: proof.dropLast()) == nil, "a missing hash")
        #expect(self.root(leaves, size: size, proof: proof + [proof[0]]) == nil, "one hash too many")
        #expect(self.root([leaves[1], leaves[0]] + leaves.dropFirst(2), size: size, proof: proof) == nil, "unsorted")
        #expect(self.root([leaves[0]] + leaves, size: size, proof: proof) == nil, "repeated")
        #expect(self.root([], size: size, proof: []) == nil, "no leaf")
        let last = self.leaves([299])
        #expect(self.root(last, size: 299, proof: self.proof([298], size: 299)) == nil, "index == size")
        #expect(self.root([(index: -1, hash: leaves[0].hash)], size: size, proof: proof) == nil, "a negative index")
        let many = Array(Int64(0)...64)
        #expect(MultiLeafProof.ranges(indices: many, size: size).isEmpty)
        #expect(self.root(self.leaves(many), size: size, proof: []) == nil, "65 leaves")
        var short = leaves
        short[2].hash.removeLast()
        #expect(self.root(short, size: size, proof: proof) == nil, "a 31-byte leaf hash")
        var shortProof = proof
        shortProof[1].removeLast()
        #expect(self.root(leaves, size: size, proof: shortProof) == nil, "a 31-byte proof hash")
        let tooLong = [[UInt8]](repeating: proof[0], count: MultiLeafProof.maximumHashes + 1)
        #expect(self.root(leaves, size: size, proof: tooLong) == nil, "more than 64 × 63 hashes")
        var changed = leaves
        changed[1].hash[0] ^= 1
        let other = self.root(changed, size: size, proof: proof)
        #expect(other != nil && other != self.tree.root(size: size), "a changed leaf hash")
    }

    /// A checkpoint's size is what a server sent: the largest tree takes 63 levels, one step each.
    @Test func theLargestTreeIsWalkedInSixtyThreeLevels() {
        let ranges = MultiLeafProof.ranges(indices: [0, Int64.max - 1], size: Int64.max)
        #expect(ranges.count == 62 + 61)
        let proof = [[UInt8]](repeating: self.tree.leaves[0], count: ranges.count)
        let leaves = [(index: Int64(0), hash: self.tree.leaves[0]), (index: Int64.max - 1, hash: self.tree.leaves[1])]
        #expect(self.root(leaves, size: Int64.max, proof: proof)?.count == 32)
        #expect(MultiLeafProof.ranges(indices: [0], size: Int64.max).count == 63)
    }
}

/// SplitMix64: random choices that are the same on every run.
struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        self.state = seed
    }

    mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var value = self.state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
