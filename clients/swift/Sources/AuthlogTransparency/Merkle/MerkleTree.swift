/// Where the log's hashes are computed: the leaf hash of an event and the interior nodes of the Merkle tree,
/// as RFC 9162 §2.1.1 defines them. docs/events.md ("The Merkle tree") documents the leaf data.
public enum MerkleTree {
    /// The hash of the empty tree: SHA-256 of no bytes.
    public static let emptyRoot: [UInt8] = [
        0xe3, 0xb0, 0xc4, 0x42, 0x98, 0xfc, 0x1c, 0x14, 0x9a, 0xfb, 0xf4, 0xc8, 0x99, 0x6f, 0xb9, 0x24,
        0x27, 0xae, 0x41, 0xe4, 0x64, 0x9b, 0x93, 0x4c, 0xa4, 0x95, 0x99, 0x1b, 0x78, 0x52, 0xb8, 0x55,
    ]

    /// The leaf data of the event at `position` with canonical-bytes `digest`: the position as 8 bytes
    /// big-endian followed by the 32-byte digest.
    public static func leafData(position: Int64, digest: [UInt8]) -> [UInt8] {
        var data = [UInt8]()
        data.reserveCapacity(40)
        for shift in stride(from: 56, through: 0, by: -8) {
            data.append(UInt8(truncatingIfNeeded: position >> Int64(shift)))
        }
        data.append(contentsOf: digest)
        return data
    }

    /// `SHA-256(0x00 ‖ leaf data)`, hashed from one buffer on the stack.
    public static func leafHash(position: Int64, digest: [UInt8], crypto: some TransparencyCrypto) -> [UInt8] {
        withUnsafeTemporaryAllocation(byteCount: 9 + digest.count, alignment: 1) { buffer in
            buffer[0] = 0
            for index in 0..<8 {
                buffer[1 + index] = UInt8(truncatingIfNeeded: position >> Int64(56 - 8 * index))
            }
            digest.withUnsafeBytes {
                UnsafeMutableRawBufferPointer(rebasing: buffer[9..<buffer.count]).copyMemory(from: $0)
            }
            return crypto.sha256(UnsafeRawBufferPointer(buffer))
        }
    }

    /// `SHA-256(0x01 ‖ left ‖ right)`, hashed from one buffer on the stack.
    public static func nodeHash(_ left: [UInt8], _ right: [UInt8], crypto: some TransparencyCrypto) -> [UInt8] {
        withUnsafeTemporaryAllocation(byteCount: 1 + left.count + right.count, alignment: 1) { buffer in
            buffer[0] = 1
            left.withUnsafeBytes {
                UnsafeMutableRawBufferPointer(rebasing: buffer[1..<buffer.count]).copyMemory(from: $0)
            }
            right.withUnsafeBytes {
                UnsafeMutableRawBufferPointer(rebasing: buffer[(1 + left.count)..<buffer.count]).copyMemory(from: $0)
            }
            return crypto.sha256(UnsafeRawBufferPointer(buffer))
        }
    }

    /// The largest power of two strictly below `count` (`count` ≥ 2): the highest bit of `count − 1`, so a size
    /// up to `Int64.max` (a checkpoint's, as a server sent it) takes one step, never a loop that overflows.
    static func largestPowerOfTwo(below count: Int64) -> Int64 {
        guard count > 2 else { return 1 }
        return Int64(1) << Int64(63 - (count - 1).leadingZeroBitCount)
    }
}

/// The right edge of a tree: the hashes of its maximal complete subtrees, largest (leftmost) first. Appending
/// a leaf and computing the root need nothing else, so the sealer keeps it in the log head.
public struct MerkleFrontier: Sendable, Equatable {
    /// The number of leaves.
    public private(set) var size: Int64
    /// One hash per set bit of `size`, from the highest bit down.
    public private(set) var hashes: [[UInt8]]

    /// The frontier of the empty tree.
    public init() {
        self.size = 0
        self.hashes = []
    }

    /// A frontier read back from storage: `bytes` holds one 32-byte hash per set bit of `size`.
    /// Returns nil when they do not fit together.
    public init?(size: Int64, bytes: [UInt8]) {
        guard size >= 0, bytes.count == size.nonzeroBitCount * 32 else { return nil }
        self.size = size
        self.hashes = stride(from: 0, to: bytes.count, by: 32).map { Array(bytes[$0..<$0 + 32]) }
    }

    /// The hashes, concatenated, as stored.
    public var bytes: [UInt8] { self.hashes.flatMap { $0 } }

    /// The tree's root hash (RFC 9162 MTH).
    public func root(crypto: some TransparencyCrypto) -> [UInt8] {
        guard var root = self.hashes.last else { return MerkleTree.emptyRoot }
        for hash in self.hashes.dropLast().reversed() {
            root = MerkleTree.nodeHash(hash, root, crypto: crypto)
        }
        return root
    }

    /// Appends a leaf and returns the interior nodes it completed, level 1 first: the new leaf closes one
    /// complete subtree per trailing one bit of the old size.
    @discardableResult
    public mutating func append(leaf: [UInt8], crypto: some TransparencyCrypto) -> [[UInt8]] {
        var carry = leaf
        var completed: [[UInt8]] = []
        var size = self.size
        while size & 1 == 1, let left = self.hashes.popLast() {
            carry = MerkleTree.nodeHash(left, carry, crypto: crypto)
            completed.append(carry)
            size >>= 1
        }
        self.hashes.append(carry)
        self.size += 1
        return completed
    }
}

/// A node of a complete subtree: `level` 0 is a leaf; the node at `level` L and `index` K covers leaves
/// K·2^L ..< (K+1)·2^L (0-based leaf indices; the leaf of position p has index p − 1).
public struct MerkleNodeID: Sendable, Hashable {
    /// The height above the leaves.
    public var level: Int
    /// The index among the nodes of that level.
    public var index: Int64

    /// The node at `level` and `index`.
    public init(level: Int, index: Int64) {
        self.level = level
        self.index = index
    }

    /// The position whose log row stores this node: the last leaf it covers, (index + 1) · 2^level.
    ///
    /// - Precondition: the node belongs to a tree of at most `Int64.max` leaves: `level` in 0…62, `index` ≥ 0 and
    ///   (index + 1) · 2^level ≤ `Int64.max`, as every node ``MerkleProof/nodes(of:)`` plans. Any other node stops
    ///   the program with a sentence naming it, rather than naming a wrong row.
    public var storingPosition: Int64 {
        precondition(self.index >= 0 && self.index < Int64.max && (0...62).contains(self.level), self.outOfRange)
        let (position, overflow) = (self.index + 1).multipliedReportingOverflow(by: 1 << Int64(self.level))
        precondition(!overflow, self.outOfRange)
        return position
    }

    /// Why ``storingPosition`` stops for this node.
    private var outOfRange: String { "the node \(self.level)/\(self.index) is not in a tree of Int64 positions" }
}

/// Inclusion and consistency proofs (RFC 9162 §2.1.3 and §2.1.4), planned as ranges of leaves whose subtree
/// hashes the proof lists, bottom up, and then computed from the complete-subtree nodes those ranges need.
public enum MerkleProof {
    /// A subtree hash over leaves `start ..< end` (0-based).
    public struct Range: Sendable, Equatable {
        /// First leaf index.
        public var start: Int64
        /// One past the last leaf index.
        public var end: Int64

        /// The range of leaves `start ..< end`.
        public init(start: Int64, end: Int64) {
            self.start = start
            self.end = end
        }
    }

    /// The ranges of the inclusion proof of leaf `index` in the tree of `size` leaves (0 ≤ index < size).
    public static func inclusion(index: Int64, size: Int64) -> [Range] {
        var start: Int64 = 0
        var end = size
        var pending: [Range] = []
        while end - start > 1 {
            let split = start + MerkleTree.largestPowerOfTwo(below: end - start)
            if index < split {
                pending.append(Range(start: split, end: end))
                end = split
            } else {
                pending.append(Range(start: start, end: split))
                start = split
            }
        }
        return pending.reversed()
    }

    /// The ranges of the consistency proof from the tree of `oldSize` leaves to the tree of `newSize`
    /// (0 < oldSize ≤ newSize); empty when the sizes are equal.
    public static func consistency(oldSize: Int64, newSize: Int64) -> [Range] {
        var pending: [Range] = []
        var start: Int64 = 0
        var end = newSize
        var isLeftEdge = true
        while true {
            let count = end - start
            let old = oldSize - start
            if old == count {
                if !isLeftEdge { pending.append(Range(start: start, end: end)) }
                break
            }
            let split = start + MerkleTree.largestPowerOfTwo(below: count)
            if oldSize <= split {
                pending.append(Range(start: split, end: end))
                end = split
            } else {
                pending.append(Range(start: start, end: split))
                start = split
                isLeftEdge = false
            }
        }
        return pending.reversed()
    }

    /// The complete-subtree nodes whose hashes the subtree hash of `range` is made of.
    public static func nodes(of range: Range) -> [MerkleNodeID] {
        let count = range.end - range.start
        if count.nonzeroBitCount == 1, range.start % count == 0 {
            return [MerkleNodeID(level: count.trailingZeroBitCount, index: range.start / count)]
        }
        let split = range.start + MerkleTree.largestPowerOfTwo(below: count)
        return self.nodes(of: Range(start: range.start, end: split))
            + self.nodes(of: Range(start: split, end: range.end))
    }

    /// The subtree hash of `range`, from the hashes of ``nodes(of:)``; nil when one is missing.
    public static func hash(
        of range: Range,
        nodes: [MerkleNodeID: [UInt8]],
        crypto: some TransparencyCrypto
    ) -> [UInt8]? {
        let count = range.end - range.start
        if count.nonzeroBitCount == 1, range.start % count == 0 {
            return nodes[MerkleNodeID(level: count.trailingZeroBitCount, index: range.start / count)]
        }
        let split = range.start + MerkleTree.largestPowerOfTwo(below: count)
        guard let left = self.hash(of: Range(start: range.start, end: split), nodes: nodes, crypto: crypto),
            let right = self.hash(of: Range(start: split, end: range.end), nodes: nodes, crypto: crypto)
        else { return nil }
        return MerkleTree.nodeHash(left, right, crypto: crypto)
    }
}
