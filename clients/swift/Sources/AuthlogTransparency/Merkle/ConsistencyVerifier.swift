/// Checks an RFC 9162 §2.1.4.2 consistency proof: that the tree of `oldSize` leaves with root `oldRoot` is a
/// prefix of the tree of `newSize` leaves with root `newRoot`. A pure function of its inputs; a witness runs it
/// on what a log sends (docs/events.md, "The Merkle tree").
public enum ConsistencyVerifier {
    /// Why a proof does not verify.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// A size is negative or the old size exceeds the new one.
        case badSizes
        /// A hash is not 32 bytes.
        case badHash
        /// The proof has the wrong number of hashes for the two sizes.
        case wrongLength
        /// The proof does not rebuild the old root.
        case oldRootMismatch
        /// The proof does not rebuild the new root.
        case newRootMismatch

        /// The reason as a sentence.
        public var description: String {
            switch self {
            case .badSizes: "the old size must be between 0 and the new size"
            case .badHash: "a hash is not 32 bytes"
            case .wrongLength: "the proof has the wrong number of hashes"
            case .oldRootMismatch: "the proof does not lead to the old root"
            case .newRootMismatch: "the proof does not lead to the new root"
            }
        }
    }

    /// Verifies `proof` from (`oldSize`, `oldRoot`) to (`newSize`, `newRoot`), hashing with `crypto`.
    /// An old size of zero proves with an empty proof (the empty tree is a prefix of every tree); equal sizes
    /// prove with an empty proof and equal roots.
    /// - Throws: ``Failure``.
    public static func verify(
        oldSize: Int64,
        oldRoot: [UInt8],
        newSize: Int64,
        newRoot: [UInt8],
        proof: [[UInt8]],
        crypto: some TransparencyCrypto
    ) throws(Failure) {
        guard oldSize >= 0, oldSize <= newSize else { throw .badSizes }
        guard oldRoot.count == 32, newRoot.count == 32, proof.allSatisfy({ $0.count == 32 }) else { throw .badHash }
        if oldSize == 0 {
            guard proof.isEmpty else { throw .wrongLength }
            return
        }
        if oldSize == newSize {
            guard proof.isEmpty else { throw .wrongLength }
            guard oldRoot == newRoot else { throw .newRootMismatch }
            return
        }
        // RFC 9162 §2.1.4.2, with node indices fn = first - 1 and sn = second - 1.
        var path = proof[...]
        if oldSize.nonzeroBitCount == 1 {
            // The old tree is a complete subtree: its root is the (implicit) first element of the proof.
            path = [oldRoot] + path
        }
        guard let first = path.first else { throw .wrongLength }
        var fn = oldSize - 1
        var sn = newSize - 1
        while fn & 1 == 1 {
            fn >>= 1
            sn >>= 1
        }
        var fr = first
        var sr = first
        for hash in path.dropFirst() {
            guard sn != 0 else { throw .wrongLength }
            if fn & 1 == 1 || fn == sn {
                fr = MerkleTree.nodeHash(hash, fr, crypto: crypto)
                sr = MerkleTree.nodeHash(hash, sr, crypto: crypto)
                if fn & 1 == 0 {
                    while fn & 1 == 0 && fn != 0 {
                        fn >>= 1
                        sn >>= 1
                    }
                }
            } else {
                sr = MerkleTree.nodeHash(sr, hash, crypto: crypto)
            }
            fn >>= 1
            sn >>= 1
        }
        guard sn == 0 else { throw .wrongLength }
        guard fr == oldRoot else { throw .oldRootMismatch }
        guard sr == newRoot else { throw .newRootMismatch }
    }
}
