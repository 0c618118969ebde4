import AuthlogStore
import AuthlogTesting
import Foundation

/// An auditor's client that computes inclusion proofs from tlog-tiles fetched over HTTP, keeping every tile it
/// fetched and every node hash it derived (a tile cache, as a real auditor keeps), and checks each proof
/// against the checkpoint's root. One task uses it at a time.
final class TileProver {
    let client: HTTPTestClient
    let size: Int64
    let root: [UInt8]
    private var tiles: [String: [[UInt8]]] = [:]
    private var nodes: [MerkleNodeID: [UInt8]] = [:]
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
        for node in ranges.flatMap(MerkleProof.nodes(of:)) where self.nodes[node] == nil {
            self.nodes[node] = try await self.node(node)
        }
        let proof = try ranges.map {
            guard let hash = MerkleProof.hash(of: $0, nodes: self.nodes) else {
                throw BenchFailure("a node is missing")
            }
            return hash
        }
        let leaf = try await self.node(MerkleNodeID(level: 0, index: index))
        guard InclusionProofCheck.holds(index: index, size: self.size, leafHash: leaf, root: self.root, proof: proof)
        else {
            throw BenchFailure("the proof of position \(position) from tiles does not lead to the checkpoint's root")
        }
    }

    /// The node's hash: the hashes of its span in the tile at level ⌊level / 8⌋, hashed together.
    private func node(_ node: MerkleNodeID) async throws -> [UInt8] {
        if let known = self.nodes[node] { return known }
        let tileLevel = node.level / TilePath.height
        let span = Int64(1) << Int64(node.level % TilePath.height)
        let first = node.index * span
        let tileIndex = first / Int64(TilePath.width)
        let width = Int(min(Int64(TilePath.width), (self.size >> Int64(tileLevel * 8)) - tileIndex * 256))
        guard let tile = TilePath(kind: .hashes(level: tileLevel), index: tileIndex, width: width) else {
            throw BenchFailure("no tile for node \(node.level)/\(node.index)")
        }
        let hashes = try await self.tile(tile)
        let start = Int(first % Int64(TilePath.width))
        var level = Array(hashes[start..<start + Int(span)])
        while level.count > 1 {
            level = stride(from: 0, to: level.count, by: 2).map { MerkleTree.nodeHash(level[$0], level[$0 + 1]) }
        }
        guard let hash = level.first else { throw BenchFailure("empty span") }
        self.nodes[node] = hash
        return hash
    }

    private func tile(_ tile: TilePath) async throws -> [[UInt8]] {
        if let known = self.tiles[tile.description] { return known }
        let answer = try await self.client.send("GET", "/" + tile.description)
        guard answer.status == 200, answer.body.count == tile.width * 32 else {
            throw BenchFailure("GET /\(tile): \(answer.status), \(answer.body.count) bytes")
        }
        self.fetches += 1
        let hashes = stride(from: 0, to: answer.body.count, by: 32).map { Array(answer.body[$0..<$0 + 32]) }
        self.tiles[tile.description] = hashes
        return hashes
    }
}
