import AuthlogClient
import Foundation
import Testing

@testable import AuthlogTransparency

/// Trees near 2^62 and `Int64.max` leaves, the sizes an app may be handed by a server: the proof plans end (doubling
/// a power of two past 2^62 used to wrap to 0 and loop for ever), a node's storing position is exact or stops the
/// program with a sentence, and the inclusion check refuses hashes that are not 32 bytes.
struct MerkleLimitsTests {
    let crypto = PlatformTransparencyCrypto()

    @Test(.timeLimit(.minutes(1))) func thePlansEndAtSizesNearInt64Max() {
        #expect(MerkleTree.largestPowerOfTwo(below: 2) == 1)
        #expect(MerkleTree.largestPowerOfTwo(below: 3) == 2)
        #expect(MerkleTree.largestPowerOfTwo(below: 5) == 4)
        #expect(MerkleTree.largestPowerOfTwo(below: 1 << 62) == 1 << 61)
        #expect(MerkleTree.largestPowerOfTwo(below: (1 << 62) + 1) == 1 << 62)
        #expect(MerkleTree.largestPowerOfTwo(below: Int64.max) == 1 << 62)

        // The last leaf of the largest tree: one range per level below the top, each a power of two, covering
        // every other leaf once.
        let ranges = MerkleProof.inclusion(index: Int64.max - 1, size: Int64.max)
        #expect(ranges.count == 62)
        #expect(ranges.last == MerkleProof.Range(start: 0, end: 1 << 62))
        #expect(ranges.allSatisfy { ($0.end - $0.start).nonzeroBitCount == 1 })
        #expect(ranges.map { $0.end - $0.start }.reduce(0, +) == Int64.max - 1)
        #expect(MerkleProof.inclusion(index: 1 << 62, size: (1 << 62) + 1) == [.init(start: 0, end: 1 << 62)])
        #expect(!MerkleProof.consistency(oldSize: (1 << 62) + 1, newSize: Int64.max).isEmpty)
        #expect(MerkleProof.consistency(oldSize: 1 << 62, newSize: Int64.max).first?.start == 1 << 62)

        let nodes = MerkleProof.nodes(of: MerkleProof.Range(start: 0, end: Int64.max))
        #expect(nodes.count == 63)
        #expect(nodes.first == MerkleNodeID(level: 62, index: 0) && nodes.first?.storingPosition == 1 << 62)
        #expect(nodes.last == MerkleNodeID(level: 0, index: Int64.max - 1) && nodes.last?.storingPosition == Int64.max)
        #expect(zip(nodes, nodes.dropFirst()).allSatisfy { $0.storingPosition < $1.storingPosition })
    }

    /// A node past `Int64.max` has no position: it stops with a sentence instead of wrapping to another row
    /// (2 · 2^62 used to become `Int64.min`, and a level of 64 made every node position 0).
    @Test func aNodeOutsideEveryTreeHasNoPosition() async {
        await #expect(processExitsWith: .failure) { _ = MerkleNodeID(level: 62, index: 1).storingPosition }
        await #expect(processExitsWith: .failure) { _ = MerkleNodeID(level: 64, index: 0).storingPosition }
        await #expect(processExitsWith: .failure) { _ = MerkleNodeID(level: 1, index: -1).storingPosition }
    }

    @Test func anInclusionProofOfHashesThatAreNot32BytesNeverHolds() {
        func holds(index: Int64, size: Int64, leaf: [UInt8], root: [UInt8], proof: [[UInt8]]) -> Bool {
            InclusionProofCheck.holds(
                index: index,
                size: size,
                leafHash: leaf,
                root: root,
                proof: proof,
                crypto: self.crypto
            )
        }
        let short = [UInt8](repeating: 7, count: 31)
        #expect(!holds(index: 0, size: 1, leaf: short, root: short, proof: []), "a one-leaf tree of a 31-byte hash")
        let long = [UInt8](repeating: 7, count: 33)
        #expect(!holds(index: 0, size: 1, leaf: long, root: long, proof: []))
        let left = self.crypto.sha256([1])
        let right = self.crypto.sha256([2])
        #expect(
            holds(
                index: 0,
                size: 2,
                leaf: left,
                root: MerkleTree.nodeHash(left, right, crypto: self.crypto),
                proof: [right]
            )
        )
        let odd = right + [0]
        #expect(
            !holds(
                index: 0,
                size: 2,
                leaf: left,
                root: MerkleTree.nodeHash(left, odd, crypto: self.crypto),
                proof: [odd]
            ),
            "a 33-byte sibling hashes to a root, but it is no SHA-256 hash"
        )
        let deep = [[UInt8]](repeating: left, count: 62)
        #expect(!holds(index: Int64.max - 1, size: Int64.max, leaf: left, root: right, proof: deep))
    }
}
