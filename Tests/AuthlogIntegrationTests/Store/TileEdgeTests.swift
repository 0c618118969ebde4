import AuthlogCore
import AuthlogCrypto
import AuthlogStore
import Testing

/// The tile edge retention keeps (no database): for each size, the values its shape asks for, stored and read back
/// byte for byte; they hash to the frontier of the dropped positions, and a changed value or a value of another
/// tree does not.
struct TileEdgeTests {
    /// A tree of `count` leaves, position p's digest SHA-256 of p in decimal.
    struct Tree {
        let digests: [[UInt8]]
        let leaves: [[UInt8]]

        init(count: Int) {
            self.digests = (1...count).map { SHA256.hash(Array("\($0)".utf8)) }
            self.leaves = self.digests.enumerated().map {
                MerkleTree.leafHash(position: Int64($0.offset + 1), digest: $0.element)
            }
        }

        /// The hash of node `index` at tree height `height`.
        func node(height: Int, index: Int) -> [UInt8] {
            guard height > 0 else { return self.leaves[index] }
            return MerkleTree.nodeHash(
                self.node(height: height - 1, index: 2 * index),
                self.node(height: height - 1, index: 2 * index + 1)
            )
        }

        /// The edge of the first `size` leaves, from the tree's own nodes.
        func edge(size: Int64) -> TileEdge? {
            let first = Int(size & ~255)
            var hashes: [[[UInt8]]] = []
            var level = 1
            while size >> Int64(8 * level) > 0 {
                hashes.append(
                    TileEdge.nodeIDs(size: size, level: level).map {
                        self.node(height: 8 * level, index: Int($0.index))
                    }
                )
                level += 1
            }
            return TileEdge(size: size, digests: Array(self.digests[first..<Int(size)]), hashes: hashes)
        }

        /// The frontier of the first `size` leaves.
        func frontier(size: Int64) -> MerkleFrontier {
            var frontier = MerkleFrontier()
            for leaf in self.leaves.prefix(Int(size)) { frontier.append(leaf: leaf) }
            return frontier
        }
    }

    @Test func anEdgeHashesToItsFrontierAndNothingElseDoes() throws {
        let tree = Tree(count: 66_000)
        for size in [1, 255, 256, 257, 300, 601, 5003, 65_535, 65_536, 65_800] as [Int64] {
            let edge = try #require(tree.edge(size: size), "size \(size)")
            #expect(edge.digests.count == Int(size % 256))
            var counts: [Int] = []
            var level: Int64 = 1
            while size >> (8 * level) > 0 {
                counts.append(Int((size >> (8 * level)) % 256))
                level += 1
            }
            #expect(edge.hashes.map(\.count) == counts, "the dropped hashes of each level's straddling tile")
            #expect(TileEdge(size: size, bytes: edge.bytes) == edge, "read back as stored")
            #expect(TileEdge(size: size, bytes: edge.bytes + [0]) == nil)
            #expect(TileEdge(size: size + 1, bytes: edge.bytes) == nil, "the size fixes the shape")
            let frontier = tree.frontier(size: size)
            #expect(edge.proves(frontier), "size \(size)")
            var bytes = edge.bytes
            guard !bytes.isEmpty else { continue }
            for offset in stride(from: 0, to: bytes.count, by: max(32, bytes.count / 7)) {
                bytes[offset] ^= 0x01
                let changed = try #require(TileEdge(size: size, bytes: bytes))
                #expect(!changed.proves(frontier), "a byte changed at \(offset) of the edge of \(size)")
                bytes[offset] ^= 0x01
            }
        }
    }
}
