/// Checks an RFC 9162 §2.1.3.2 inclusion proof: that `leafHash` is the leaf at `index` (0-based) of the tree of
/// `size` leaves with root `root`. Pure: no database.
public enum InclusionProofCheck {
    /// Whether `proof` (bottom up) proves the leaf's inclusion, hashing with `crypto`; false for a leaf hash, root
    /// or sibling that is not 32 bytes (a SHA-256 hash).
    public static func holds(
        index: Int64,
        size: Int64,
        leafHash: [UInt8],
        root: [UInt8],
        proof: [[UInt8]],
        crypto: some TransparencyCrypto
    ) -> Bool {
        guard index >= 0, index < size, proof.count <= 64, leafHash.count == 32, root.count == 32,
            proof.allSatisfy({ $0.count == 32 })
        else { return false }
        var fn = index
        var sn = size - 1
        var hash = leafHash
        for sibling in proof {
            guard sn != 0 else { return false }
            if fn & 1 == 1 || fn == sn {
                hash = MerkleTree.nodeHash(sibling, hash, crypto: crypto)
                while fn & 1 == 0, fn != 0 {
                    fn >>= 1
                    sn >>= 1
                }
            } else {
                hash = MerkleTree.nodeHash(hash, sibling, crypto: crypto)
            }
            fn >>= 1
            sn >>= 1
        }
        return sn == 0 && hash == root
    }
}
