/// Checks an RFC 9162 §2.1.4.2 consistency proof: that the tree of `newSize` leaves with root `newRoot`
/// contains the tree of `oldSize` leaves with root `oldRoot` as its prefix. Pure: no database.
public enum ConsistencyProofCheck {
    /// Whether `proof` (bottom up, as ``LogProofs/consistency(from:to:on:)`` makes it) proves the trees
    /// consistent. An old size of 0 is consistent with anything (and needs an empty proof).
    public static func holds(
        oldSize: Int64,
        oldRoot: [UInt8],
        newSize: Int64,
        newRoot: [UInt8],
        proof: [[UInt8]]
    ) -> Bool {
        guard oldSize >= 0, oldSize <= newSize, proof.count <= 128 else { return false }
        if oldSize == 0 { return proof.isEmpty }
        if oldSize == newSize { return proof.isEmpty && oldRoot == newRoot }
        var path = proof
        if oldSize.nonzeroBitCount == 1 { path.insert(oldRoot, at: 0) }
        guard let first = path.first else { return false }
        var fn = oldSize - 1
        var sn = newSize - 1
        while fn & 1 == 1 {
            fn >>= 1
            sn >>= 1
        }
        var fr = first
        var sr = first
        for hash in path.dropFirst() {
            guard sn != 0 else { return false }
            if fn & 1 == 1 || fn == sn {
                fr = MerkleTree.nodeHash(hash, fr)
                sr = MerkleTree.nodeHash(hash, sr)
                while fn & 1 == 0, fn != 0 {
                    fn >>= 1
                    sn >>= 1
                }
            } else {
                sr = MerkleTree.nodeHash(sr, hash)
            }
            fn >>= 1
            sn >>= 1
        }
        return sn == 0 && fr == oldRoot && sr == newRoot
    }
}
