import AuthlogStore
import AuthlogTesting
import AuthlogTransparency
import Foundation

/// An auditor's client that computes inclusion proofs from tlog-tiles fetched over HTTP and checks each
/// proof against the checkpoint's root. It keeps every tile it fetched with the tile's inner tree hashed
/// once (a tile cache, as a real auditor keeps): from a tile of level L come the nodes of tree levels 8L…8L+7
/// under it, so every node a proof needs is read, never hashed again. One task uses it at a time.
final class TileProver {
    let client: HTTPTestClient
    let size: Int64
    let root: [UInt8]
    /// Each fetched tile's levels: `[0]` the tile's own hashes, `[k]` the nodes k levels above them.
    private var tiles: [MerkleNodeID: [[[UInt8]]]] = [:]
    /// Tiles fetched so far.
    private(set) var fetches = 0

    init(baseURL: String, size: Int64, root: [UInt8]) {
        self.client = HTTPTestClient(baseURL: baseURL)
        self.size = size
        self.root = root
    }

    /// Proves the leaf at `position` (1-based) into the tree of `size` from tiles and checks the proof.
    /// - Throws: ``BenchFailure`` when a tile is missing or the proof does not lead to the root.
    func proveAndCheck(position: Int64) async throws {
        let index = position - 1
        let ranges = MerkleProof.inclusion(index: index, size: self.size)
        var proof: [[UInt8]] = []
        for range in ranges {
            let parts = MerkleProof.nodes(of: range)
            if parts.count == 1 {
                proof.append(try await self.node(parts[0]))
                continue
            }
            var nodes: [MerkleNodeID: [UInt8]] = [:]
            for node in parts { nodes[node] = try await self.node(node) }
            guard let hash = MerkleProof.hash(of: range, nodes: nodes) else { throw BenchFailure("a node is missing") }
            proof.append(hash)
        }
        let leaf = try await self.node(MerkleNodeID(level: 0, index: index))
        guard InclusionProofCheck.holds(index: index, size: self.size, leafHash: leaf, root: self.root, proof: proof)
        else {
            throw BenchFailure("the proof of position \(position) from tiles does not lead to the checkpoint's root")
        }
    }

    /// The node's hash, read from the levels of the tile at level ⌊level / 8⌋ that holds it.
    private func node(_ node: MerkleNodeID) async throws -> [UInt8] {
        let tileLevel = node.level / TilePath.height
        let above = node.level % TilePath.height
        let tileIndex = (node.index << Int64(above)) / Int64(TilePath.width)
        let levels = try await self.levels(ofTile: MerkleNodeID(level: tileLevel, index: tileIndex))
        let offset = Int(node.index - tileIndex * Int64(TilePath.width >> above))
        guard above < levels.count, offset < levels[above].count else {
            throw BenchFailure("node \(node.level)/\(node.index) is not complete in its tile")
        }
        return levels[above][offset]
    }

    /// The hashes of the tile at `place` (its level and index) and the complete nodes above them inside the
    /// tile, fetched and hashed once.
    private func levels(ofTile place: MerkleNodeID) async throws -> [[[UInt8]]] {
        if let known = self.tiles[place] { return known }
        let width = Int(min(Int64(TilePath.width), (self.size >> Int64(place.level * 8)) - place.index * 256))
        guard let tile = TilePath(kind: .hashes(level: place.level), index: place.index, width: width) else {
            throw BenchFailure("no tile \(place.level)/\(place.index)")
        }
        let answer = try await self.client.send("GET", "/" + tile.description)
        guard answer.status == 200, answer.body.count == tile.width * 32 else {
            throw BenchFailure("GET /\(tile): \(answer.status), \(answer.body.count) bytes")
        }
        self.fetches += 1
        var levels = [stride(from: 0, to: answer.body.count, by: 32).map { Array(answer.body[$0..<$0 + 32]) }]
        while let below = levels.last, below.count > 1, levels.count < TilePath.height {
            levels.append(
                stride(from: 0, to: below.count - 1, by: 2).map { MerkleTree.nodeHash(below[$0], below[$0 + 1]) }
            )
        }
        self.tiles[place] = levels
        return levels
    }
}
