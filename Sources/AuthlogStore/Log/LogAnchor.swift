import AuthlogCore
public import AuthlogPostgres

/// Where the retained log begins after retention dropped its oldest months: the last dropped position S, the
/// frontier of the tree of S leaves (the hashes of its maximal complete subtrees) and the tile edge (the dropped
/// values of the tiles that straddle S, ``TileEdge``), kept in `authlog.log_retention`. Verification continues from
/// it, proofs take from it the nodes that lie wholly in the dropped positions (the only such nodes a proof about a
/// retained event or a tree size ≥ S needs), and tiles the dropped nodes and entries of the tiles that reach past S.
public struct LogAnchor: Sendable, Equatable {
    /// The tree of the dropped positions 1…S.
    public let frontier: MerkleFrontier
    /// The dropped values of the tiles that straddle S; nil for an anchor stored before migration 25 kept them.
    public let edge: TileEdge?
    /// The frontier's and the edge's hashes by the node each is.
    public let nodes: [MerkleNodeID: [UInt8]]

    /// The last dropped position S.
    public var size: Int64 { self.frontier.size }

    /// Creates an anchor from the frontier of the dropped positions and, when kept, their tile edge.
    public init(frontier: MerkleFrontier, edge: TileEdge? = nil) {
        self.frontier = frontier
        self.edge = edge
        var nodes = edge?.nodes ?? [:]
        var start: Int64 = 0
        var hashes = frontier.hashes.makeIterator()
        for level in stride(from: 62, through: 0, by: -1) where frontier.size & (Int64(1) << Int64(level)) != 0 {
            guard let hash = hashes.next() else { break }
            nodes[MerkleNodeID(level: level, index: start >> Int64(level))] = hash
            start += Int64(1) << Int64(level)
        }
        self.nodes = nodes
    }

    /// The minimum index of C2SP tlog-tiles' pruning: every tile and entry bundle whose end index lies past it can
    /// be served, so every entry from it on has an inclusion proof, and every pair of tree sizes from it on a
    /// consistency proof, from tiles alone. S itself when the edge is kept. An anchor without an edge holds only
    /// the frontier: S is then rounded up past every tile that straddles it and needs a dropped value the frontier
    /// does not hold (an entry bundle always does).
    public var minimumIndex: Int64 {
        guard self.edge == nil else { return self.size }
        var minimum = self.size
        var level = 0
        while level < 8 {
            let shift = Int64(8 * (level + 1))
            let tile = minimum >> shift
            let first = tile << 8
            let lost = self.size >> Int64(8 * level)
            let needsDropped =
                level == 0
                ? first < lost
                : (first..<max(first, lost)).contains { self.nodes[MerkleNodeID(level: 8 * level, index: $0)] == nil }
            guard needsDropped else {
                level += 1
                continue
            }
            guard shift < 63 else { return Int64.max }
            minimum = (tile + 1) << shift
            level = 0
        }
        return minimum
    }

    /// The newest anchor, nil while nothing was dropped.
    /// - Throws: ``StoreError`` when it cannot be read or does not fit its size.
    public static func latest(on connection: Connection) async throws -> LogAnchor? {
        let result = try await connection.query(
            """
            SELECT last_dropped_position, frontier, tile_edge FROM authlog.log_retention
            WHERE last_dropped_position > 0 ORDER BY last_dropped_position DESC, through_month DESC LIMIT 1
            """
        )
        guard let row = result.first else { return nil }
        let size = try row.decode(Int64.self, at: 0)
        guard let frontier = MerkleFrontier(size: size, bytes: try row.decode(ByteaValue.self, at: 1).bytes) else {
            throw StoreError(.schema, "authlog.log_retention's frontier does not fit its size \(size)")
        }
        var edge: TileEdge?
        if let bytes = try row.decode(ByteaValue?.self, at: 2)?.bytes {
            guard let kept = TileEdge(size: size, bytes: bytes) else {
                throw StoreError(.schema, "authlog.log_retention's tile edge does not fit its size \(size)")
            }
            edge = kept
        }
        return LogAnchor(frontier: frontier, edge: edge)
    }

    /// The anchor retention keeps when it drops positions 1…`size`, read before they are dropped: the frontier of
    /// their tree and its tile edge (nil when an earlier anchor kept none and the edge needs what it dropped).
    /// - Throws: ``StoreError`` `.schema` when a node is missing or the edge does not hash to the frontier.
    public static func make(size: Int64, on connection: Connection) async throws -> LogAnchor {
        let previous = try await Self.latest(on: connection)
        let frontier = try await LogProofs.frontier(size: size, on: connection)
        let edge = try await TileEdge.read(size: size, previous: previous, on: connection)
        if let edge, !edge.proves(frontier) {
            throw StoreError(.schema, "the tiles' hashes of the first \(size) positions do not give their frontier")
        }
        return LogAnchor(frontier: frontier, edge: edge)
    }
}
