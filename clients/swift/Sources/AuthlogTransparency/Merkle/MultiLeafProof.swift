/// One proof that several leaves are in one tree: the hashes of the subtrees that hold none of them, listed in a
/// left-to-right walk of RFC 9162's split (the tree of n leaves splits at k, the largest power of two below n).
/// A subtree holding no requested leaf is one proof hash; a single requested leaf is that leaf's hash; any
/// other subtree splits into its left and right parts. With one leaf, the proof holds the same hashes as the
/// RFC 9162 inclusion proof, in the walk's order (a sibling on the left before the path below it, one on the
/// right after) rather than bottom up.
public enum MultiLeafProof {
    /// The most leaves one proof may cover.
    public static let maximumLeaves = 64
    /// The most hashes a proof may have: each leaf's path lists at most 63 (a tree of at most 2^63 leaves).
    public static let maximumHashes = maximumLeaves * 63
    /// The deepest the walk goes: a tree of at most 2^63 leaves is at most 63 levels high.
    static let maximumDepth = 64

    /// The subtrees whose hashes the proof lists, in its order, for the leaves at `indices` (sorted, unique,
    /// each < size) in the tree of `size` leaves; empty when the indices are not such (or none, or more than
    /// ``maximumLeaves``).
    public static func ranges(indices: [Int64], size: Int64) -> [MerkleProof.Range] {
        guard self.areValid(indices, size: size) else { return [] }
        var ranges: [MerkleProof.Range] = []
        _ = self.walk(
            MerkleProof.Range(start: 0, end: size),
            indices[...],
            depth: 0,
            absent: { ranges.append($0) },
            present: { _ in () },
            join: { _, _ in () }
        )
        return ranges
    }

    /// The root from the leaves' hashes and the proof, walking the same split; nil when the shape is wrong
    /// (indices unsorted, repeated, out of 0..<size, more than ``maximumLeaves``, none, a hash not 32 bytes,
    /// proof hashes left over or missing). A proof longer than ``maximumHashes`` is refused before any hashing.
    public static func root(
        leaves: [(index: Int64, hash: [UInt8])],
        size: Int64,
        proof: [[UInt8]],
        crypto: some TransparencyCrypto
    ) -> [UInt8]? {
        guard leaves.count <= self.maximumLeaves, proof.count <= self.maximumHashes,
            leaves.allSatisfy({ $0.hash.count == 32 }), proof.allSatisfy({ $0.count == 32 })
        else { return nil }
        let indices = leaves.map(\.index)
        guard self.areValid(indices, size: size) else { return nil }
        var next = 0
        let root = self.walk(
            MerkleProof.Range(start: 0, end: size),
            indices[...],
            depth: 0,
            absent: { _ -> [UInt8]? in
                guard next < proof.count else { return nil }
                defer { next += 1 }
                return proof[next]
            },
            present: { leaves[$0].hash },
            join: { MerkleTree.nodeHash($0, $1, crypto: crypto) }
        )
        guard next == proof.count else { return nil }
        return root
    }

    /// Whether `indices` are 1…``maximumLeaves`` strictly increasing leaf indices of a tree of `size` leaves.
    private static func areValid(_ indices: [Int64], size: Int64) -> Bool {
        guard (1...self.maximumLeaves).contains(indices.count), let first = indices.first, let last = indices.last
        else { return false }
        return first >= 0 && last < size && zip(indices, indices.dropFirst()).allSatisfy { $0 < $1 }
    }

    /// Walks `range`, which holds the leaves `indices` (a slice of the sorted indices, valid for the range): a
    /// range without any is `absent`, a range of one requested leaf is `present` (given its offset in the
    /// indices), and any other range joins its two parts. Nil as soon as a part is nil or the walk is deeper
    /// than ``maximumDepth``.
    private static func walk<Hash>(
        _ range: MerkleProof.Range,
        _ indices: ArraySlice<Int64>,
        depth: Int,
        absent: (MerkleProof.Range) -> Hash?,
        present: (Int) -> Hash?,
        join: (Hash, Hash) -> Hash?
    ) -> Hash? {
        guard depth <= self.maximumDepth else { return nil }
        guard !indices.isEmpty else { return absent(range) }
        let count = range.end - range.start
        if count == 1 { return present(indices.startIndex) }
        let split = range.start + MerkleTree.largestPowerOfTwo(below: count)
        let middle = indices.firstIndex { $0 >= split } ?? indices.endIndex
        guard
            let left = self.walk(
                MerkleProof.Range(start: range.start, end: split),
                indices[..<middle],
                depth: depth + 1,
                absent: absent,
                present: present,
                join: join
            ),
            let right = self.walk(
                MerkleProof.Range(start: split, end: range.end),
                indices[middle...],
                depth: depth + 1,
                absent: absent,
                present: present,
                join: join
            )
        else { return nil }
        return join(left, right)
    }
}
