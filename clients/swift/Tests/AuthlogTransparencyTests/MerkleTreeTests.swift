import AuthlogClient
import AuthlogTransparency
import Foundation
import Testing

/// The tree's hashes are RFC 9162's, computed through the ``TransparencyCrypto`` given.
struct MerkleTreeTests {
    let crypto = PlatformTransparencyCrypto()

    @Test func leafAndNodeHashesAreRFC9162s() {
        let digest = [UInt8](repeating: 0xAB, count: 32)
        #expect(MerkleTree.emptyRoot == self.crypto.sha256([]))
        #expect(
            MerkleTree.leafHash(position: 0x0102_0304_0506_0708, digest: digest, crypto: self.crypto)
                == self.crypto.sha256([0, 1, 2, 3, 4, 5, 6, 7, 8] + digest)
        )
        #expect(MerkleTree.leafData(position: 258, digest: digest) == [0, 0, 0, 0, 0, 0, 1, 2] + digest)
        let left = [UInt8](repeating: 1, count: 32)
        let right = [UInt8](repeating: 2, count: 32)
        #expect(MerkleTree.nodeHash(left, right, crypto: self.crypto) == self.crypto.sha256([1] + left + right))
    }

    /// The root of 1…9 leaves built by appending equals the RFC 9162 MTH computed recursively, and each append
    /// returns the nodes it completed.
    @Test func theFrontierGivesTheRootAndTheCompletedNodes() throws {
        let leaves = (0..<9).map { self.crypto.sha256([UInt8($0)]) }
        func mth(_ slice: ArraySlice<[UInt8]>) -> [UInt8] {
            if slice.isEmpty { return MerkleTree.emptyRoot }
            if slice.count == 1 { return slice[slice.startIndex] }
            var split = 1
            while split << 1 < slice.count { split <<= 1 }
            let middle = slice.startIndex + split
            return MerkleTree.nodeHash(mth(slice[..<middle]), mth(slice[middle...]), crypto: self.crypto)
        }
        var frontier = MerkleFrontier()
        #expect(frontier.root(crypto: self.crypto) == MerkleTree.emptyRoot)
        for (index, leaf) in leaves.enumerated() {
            let completed = frontier.append(leaf: leaf, crypto: self.crypto)
            // A leaf completes one node per trailing one bit of the size before it.
            #expect(completed.count == (~index).trailingZeroBitCount, "leaf \(index)")
            #expect(frontier.root(crypto: self.crypto) == mth(leaves[...index]), "size \(index + 1)")
            let stored = try #require(MerkleFrontier(size: frontier.size, bytes: frontier.bytes))
            #expect(stored == frontier)
        }
        #expect(MerkleFrontier(size: 3, bytes: [UInt8](repeating: 0, count: 32)) == nil)
    }

    /// Every leaf of trees of 1…40 leaves proves its inclusion; another leaf, a flipped hash, a wrong index, a
    /// dropped or added line and a proof of more than 64 hashes do not. (Another size with the same root is not
    /// a tampering this can see: a leaf's path in 3 and 4 leaves can have the same shape; the checkpoint's
    /// signature binds the size to the root.)
    @Test func inclusionProofsHoldAndTamperingsDoNot() {
        let tree = MemoryTree(count: 40)
        for size in Int64(1)...40 {
            let root = tree.root(size: size)
            for index in 0..<size {
                let proof = tree.inclusion(index: index, size: size)
                let leaf = tree.leaves[Int(index)]
                func holds(_ index: Int64, _ size: Int64, _ leaf: [UInt8], _ proof: [[UInt8]]) -> Bool {
                    InclusionProofCheck.holds(
                        index: index,
                        size: size,
                        leafHash: leaf,
                        root: root,
                        proof: proof,
                        crypto: self.crypto
                    )
                }
                #expect(holds(index, size, leaf, proof), "\(index) in \(size)")
                #expect(!holds(index, size, self.crypto.sha256(leaf), proof))
                if size > 1 { #expect(!holds((index + 1) % size, size, leaf, proof)) }
                for offset in proof.indices {
                    var flipped = proof
                    flipped[offset][0] ^= 1
                    #expect(!holds(index, size, leaf, flipped))
                    var dropped = proof
                    dropped.remove(at: offset)
                    #expect(!holds(index, size, leaf, dropped))
                }
                #expect(!holds(index, size, leaf, proof + [root]))
            }
        }
        #expect(
            !InclusionProofCheck.holds(
                index: 0,
                size: Int64.max,
                leafHash: tree.leaves[0],
                root: tree.root(size: 1),
                proof: [[UInt8]](repeating: tree.leaves[0], count: 65),
                crypto: self.crypto
            )
        )
    }
}
