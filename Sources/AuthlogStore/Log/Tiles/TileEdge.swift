import AuthlogCrypto

/// What retention keeps of the dropped positions 1…S besides their frontier, so that every tile and entry bundle
/// reaching past the minimum index S can still be served (C2SP tlog-tiles' Pruning section lets a log refuse only
/// a full tile or bundle whose end index is at or below the minimum index).
///
/// Of each tile level only the tile that straddles S has dropped nodes in it: at level 0 the leaves of positions
/// 256·⌊S/256⌋ + 1 … S, kept as their digests (the entry bundle needs the leaf data, and the leaf hashes follow
/// from it); at level L ≥ 1 the hashes at tree height 8·L with indices 256·⌊S/256^(L+1)⌋ ..< ⌊S/256^L⌋. At most
/// 255 values per level, so at most 8 × 255 × 32 bytes. Together they hash to exactly the frontier's nodes below
/// each level's next tile (``proves(_:)``), so a forged edge is caught by the frontier that the first checkpoint
/// after the anchor proves.
public struct TileEdge: Sendable, Equatable {
    /// The last dropped position S.
    public let size: Int64
    /// The digests of positions 256·⌊S/256⌋ + 1 … S, in order.
    public let digests: [[UInt8]]
    /// Per tile level L ≥ 1 (element L − 1, for every L with 256^L ≤ S), the dropped hashes of the tile that
    /// straddles S, in index order.
    public let hashes: [[[UInt8]]]

    /// An edge of `size`; nil unless every value is 32 bytes and each level has the count `size` implies.
    public init?(size: Int64, digests: [[UInt8]], hashes: [[[UInt8]]]) {
        let counts = Self.counts(size: size)
        guard size >= 0, digests.count == counts[0], hashes.map(\.count) == Array(counts.dropFirst()),
            (digests + hashes.flatMap { $0 }).allSatisfy({ $0.count == 32 })
        else { return nil }
        self.size = size
        self.digests = digests
        self.hashes = hashes
    }

    /// An edge read back from storage: the digests, then each level's hashes, 32 bytes each.
    public init?(size: Int64, bytes: [UInt8]) {
        guard size >= 0 else { return nil }
        let counts = Self.counts(size: size)
        guard bytes.count == counts.reduce(0, +) * 32 else { return nil }
        var values = stride(from: 0, to: bytes.count, by: 32).map { Array(bytes[$0..<$0 + 32]) }[...]
        var levels: [[[UInt8]]] = []
        for count in counts {
            levels.append(Array(values.prefix(count)))
            values = values.dropFirst(count)
        }
        self.init(size: size, digests: levels[0], hashes: Array(levels.dropFirst()))
    }

    /// The values as stored: the digests, then each level's hashes.
    public var bytes: [UInt8] { (self.digests + self.hashes.flatMap { $0 }).flatMap { $0 } }

    /// How many values each tile level keeps for `size`: level 0 first, then every level L ≥ 1 with 256^L ≤ size.
    static func counts(size: Int64) -> [Int] {
        var counts = [Int(size & 255)]
        var level = 1
        while level < 8, size >> Int64(8 * level) > 0 {
            counts.append(Int((size >> Int64(8 * level)) & 255))
            level += 1
        }
        return counts
    }

    /// The nodes the edge of `size` keeps at tile level `level`: leaves at level 0, else hashes at height 8·L.
    public static func nodeIDs(size: Int64, level: Int) -> [MerkleNodeID] {
        let end = size >> Int64(8 * level)
        let start = end & ~255
        return (start..<end).map { MerkleNodeID(level: 8 * level, index: $0) }
    }

    /// The first position whose digest the edge keeps.
    private var firstPosition: Int64 { (self.size & ~255) + 1 }

    /// The digest of a dropped `position` of the straddling entry bundle; nil for any other position.
    public func digest(ofPosition position: Int64) -> [UInt8]? {
        guard position >= self.firstPosition, position <= self.size else { return nil }
        return self.digests[Int(position - self.firstPosition)]
    }

    /// Every node the edge keeps, by its id: the leaf hashes of the digests and each level's hashes.
    public var nodes: [MerkleNodeID: [UInt8]] {
        var nodes: [MerkleNodeID: [UInt8]] = [:]
        for (offset, digest) in self.digests.enumerated() {
            let position = self.firstPosition + Int64(offset)
            nodes[MerkleNodeID(level: 0, index: position - 1)] = MerkleTree.leafHash(position: position, digest: digest)
        }
        for (offset, level) in self.hashes.enumerated() {
            for (node, hash) in zip(Self.nodeIDs(size: self.size, level: offset + 1), level) { nodes[node] = hash }
        }
        return nodes
    }

    /// Whether the edge hashes to `frontier`'s nodes: each frontier node of tree height h is rebuilt from the
    /// edge's values at tile level ⌊h/8⌋. Every value of the edge lies under one of those nodes, so a changed
    /// value gives another frontier.
    public func proves(_ frontier: MerkleFrontier) -> Bool {
        guard frontier.size == self.size else { return false }
        let nodes = self.nodes
        var start: Int64 = 0
        var hashes = frontier.hashes.makeIterator()
        for height in stride(from: 62, through: 0, by: -1) where self.size & (Int64(1) << Int64(height)) != 0 {
            let node = MerkleNodeID(level: height, index: start >> Int64(height))
            guard let expected = hashes.next(), Self.hash(of: node, base: 8 * (height / 8), nodes) == expected else {
                return false
            }
            start += Int64(1) << Int64(height)
        }
        return true
    }

    /// The hash of `node` rebuilt from the nodes at tree height `base` below it; nil when one is missing.
    private static func hash(of node: MerkleNodeID, base: Int, _ nodes: [MerkleNodeID: [UInt8]]) -> [UInt8]? {
        guard node.level > base else { return nodes[node] }
        let below = node.level - 1
        guard let left = self.hash(of: MerkleNodeID(level: below, index: 2 * node.index), base: base, nodes),
            let right = self.hash(of: MerkleNodeID(level: below, index: 2 * node.index + 1), base: base, nodes)
        else { return nil }
        return MerkleTree.nodeHash(left, right)
    }
}
