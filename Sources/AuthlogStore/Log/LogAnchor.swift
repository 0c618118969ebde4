import AuthlogCore
public import AuthlogPostgres
public import AuthlogTransparency

/// Where the retained log begins after retention dropped its oldest months: the last dropped position S and
/// the frontier of the tree of S leaves (the hashes of its maximal complete subtrees), kept in
/// `authlog.log_retention`. Verification continues from it, and proofs take from it the nodes that lie wholly
/// in the dropped positions (the only such nodes a proof about a retained event or a tree size ≥ S needs).
public struct LogAnchor: Sendable, Equatable {
    /// The tree of the dropped positions 1…S.
    public var frontier: MerkleFrontier

    /// The last dropped position S.
    public var size: Int64 { self.frontier.size }

    /// Creates an anchor from the frontier of the dropped positions.
    public init(frontier: MerkleFrontier) {
        self.frontier = frontier
    }

    /// The frontier's hashes by the node each is: largest (leftmost) first, one per set bit of S.
    public var nodes: [MerkleNodeID: [UInt8]] {
        var nodes: [MerkleNodeID: [UInt8]] = [:]
        var start: Int64 = 0
        var hashes = self.frontier.hashes.makeIterator()
        for level in stride(from: 62, through: 0, by: -1) where self.size & (Int64(1) << Int64(level)) != 0 {
            guard let hash = hashes.next() else { break }
            nodes[MerkleNodeID(level: level, index: start >> Int64(level))] = hash
            start += Int64(1) << Int64(level)
        }
        return nodes
    }

    /// The newest anchor, nil while nothing was dropped.
    /// - Throws: ``StoreError`` when it cannot be read or does not fit its size.
    public static func latest(on connection: Connection) async throws -> LogAnchor? {
        let result = try await connection.query(
            """
            SELECT last_dropped_position, frontier FROM authlog.log_retention WHERE last_dropped_position > 0
            ORDER BY last_dropped_position DESC, through_month DESC LIMIT 1
            """
        )
        guard let row = result.first else { return nil }
        let size = try row.decode(Int64.self, at: 0)
        guard let frontier = MerkleFrontier(size: size, bytes: try row.decode(ByteaValue.self, at: 1).bytes) else {
            throw StoreError(.schema, "authlog.log_retention's frontier does not fit its size \(size)")
        }
        return LogAnchor(frontier: frontier)
    }
}
