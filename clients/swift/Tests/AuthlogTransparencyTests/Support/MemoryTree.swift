import AuthlogClient
import AuthlogTransparency

/// A Merkle tree held in memory, leaf by leaf, with every complete-subtree node: the proofs the log's store
/// reads from its rows, computed here from the same plan (``MerkleProof``) without a database.
struct MemoryTree {
    let crypto = PlatformTransparencyCrypto()
    private(set) var frontier = MerkleFrontier()
    private(set) var nodes: [MerkleNodeID: [UInt8]] = [:]
    private(set) var leaves: [[UInt8]] = []

    /// A tree of `count` leaves whose digests are SHA-256 of their index.
    init(count: Int) {
        for index in 0..<count { self.append(digest: self.crypto.sha256([UInt8(index & 0xFF), UInt8(index >> 8)])) }
    }

    var size: Int64 { self.frontier.size }

    /// Appends the leaf of the next position with canonical-bytes `digest`.
    mutating func append(digest: [UInt8]) {
        let position = self.frontier.size + 1
        let leaf = MerkleTree.leafHash(position: position, digest: digest, crypto: self.crypto)
        let index = position - 1
        self.nodes[MerkleNodeID(level: 0, index: index)] = leaf
        let completed = self.frontier.append(leaf: leaf, crypto: self.crypto)
        for (offset, hash) in completed.enumerated() {
            let level = offset + 1
            self.nodes[MerkleNodeID(level: level, index: index >> Int64(level))] = hash
        }
        self.leaves.append(leaf)
    }

    /// The root of the first `size` leaves.
    func root(size: Int64) -> [UInt8] {
        guard size > 0 else { return MerkleTree.emptyRoot }
        return self.hash(of: MerkleProof.Range(start: 0, end: size))
    }

    /// The inclusion proof of leaf `index` in the tree of `size` leaves.
    func inclusion(index: Int64, size: Int64) -> [[UInt8]] {
        MerkleProof.inclusion(index: index, size: size).map(self.hash(of:))
    }

    /// The consistency proof from `old` leaves to `new`.
    func consistency(old: Int64, new: Int64) -> [[UInt8]] {
        MerkleProof.consistency(oldSize: old, newSize: new).map(self.hash(of:))
    }

    /// The subtree hash of the leaves of `range`.
    func hash(of range: MerkleProof.Range) -> [UInt8] {
        MerkleProof.hash(of: range, nodes: self.nodes, crypto: self.crypto) ?? []
    }
}
