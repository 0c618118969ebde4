import AuthlogCore
public import AuthlogPostgres

/// Reads tlog-tiles resources (``TilePath``) from the sealed log, as far as the latest signed checkpoint covers
/// it: a full tile is served as immutable and cached for good, so nothing the checkpoint does not commit to (and a
/// rollback could change) is served. A hash tile's hashes are complete-subtree nodes: node K at tree height h is
/// stored by position (K + 1)·2^h in `authlog.log_leaves` (the leaf hash at height 0, else the (h − 1)-th hash of
/// `subtree_hashes`), so a tile is one query by position. An entry bundle is the positions' leaf data
/// (``MerkleTree/leafData(position:digest:)``), each behind a big-endian uint16 length, whose RFC 9162 leaf hashes
/// are the level-0 tile. After retention, the dropped nodes and digests of the tiles that straddle the minimum
/// index come from the anchor (its frontier and ``TileEdge``).
public enum TileReader {
    /// Where the log stands for tiles: the size of the latest signed checkpoint and what retention dropped.
    public struct State: Sendable, Equatable {
        /// The tree size tiles are served for: the latest signed checkpoint's (0 before the first).
        public var size: Int64
        /// The newest retention anchor (nil while nothing was dropped).
        public var anchor: LogAnchor?

        /// The state of the tree of `size` leaves after retention's `anchor`: what a checkpoint of `size` needs.
        public init(size: Int64, anchor: LogAnchor?) {
            self.size = size
            self.anchor = anchor
        }

        /// The minimum index of tlog-tiles' pruning (0 when nothing was dropped; ``LogAnchor/minimumIndex``).
        public var minimumIndex: Int64 { self.anchor?.minimumIndex ?? 0 }

        /// Whether the tree of `size` leaves has the hashes or entries of `tile`: 256·N + W nodes at its height.
        public func covers(_ tile: TilePath) -> Bool {
            guard tile.treeLevel < 63 else { return false }
            let nodes = self.size >> Int64(tile.treeLevel)
            let (first, overflow) = tile.index.multipliedReportingOverflow(by: Int64(TilePath.width))
            guard !overflow else { return false }
            let (end, overflowed) = first.addingReportingOverflow(Int64(tile.width))
            return !overflowed && end <= nodes
        }
    }

    /// The latest signed checkpoint's size and the newest anchor.
    public static func state(on connection: Connection) async throws -> State {
        let rows = try await connection.query("SELECT coalesce(max(tree_size), 0) FROM authlog.checkpoints")
        let size = try rows.first?.decode(Int64.self, at: 0) ?? 0
        return State(size: size, anchor: try await LogAnchor.latest(on: connection))
    }

    /// The bytes of `tile` (32 per hash; 42 per entry), as `state` (read by ``state(on:)`` on the same
    /// connection) has it. A partial tile of any width the checkpoint's tree covers is served: its hashes never
    /// change.
    /// - Throws: ``StoreError`` `.outOfRange` when the checkpoint does not (yet) cover the tile, `.dropped` when a
    ///   hash or entry of it lay in positions retention dropped and the anchor does not keep it (only a tile
    ///   that ends at or below the minimum index, or one of an anchor stored before migration 25).
    public static func read(_ tile: TilePath, state: State, on connection: Connection) async throws -> [UInt8] {
        guard state.covers(tile) else {
            throw StoreError(
                .outOfRange,
                "the latest signed checkpoint has \(state.size) events; \(tile) lies beyond them"
            )
        }
        switch tile.kind {
        case .hashes: return try await self.hashes(tile, anchor: state.anchor, on: connection)
        case .entries: return try await self.entries(tile, anchor: state.anchor, on: connection)
        }
    }

    /// Reads `tile` at the latest signed checkpoint now (``state(on:)`` then ``read(_:state:on:)``).
    public static func read(_ tile: TilePath, on connection: Connection) async throws -> [UInt8] {
        try await self.read(tile, state: try await self.state(on: connection), on: connection)
    }

    private static func hashes(
        _ tile: TilePath,
        anchor: LogAnchor?,
        on connection: Connection
    ) async throws
        -> [UInt8]
    {
        let level = tile.treeLevel
        let first = tile.index * Int64(TilePath.width)
        let nodes = (0..<Int64(tile.width)).map { MerkleNodeID(level: level, index: first + $0) }
        let dropped = anchor?.size ?? 0
        let kept = anchor?.nodes ?? [:]
        var hashes: [MerkleNodeID: [UInt8]] = [:]
        for node in nodes where node.storingPosition <= dropped {
            guard let hash = kept[node] else {
                throw StoreError(.dropped, "\(tile) covers positions that retention dropped (1…\(dropped))")
            }
            hashes[node] = hash
        }
        let stored = nodes.filter { $0.storingPosition > dropped }
        if let lowest = stored.first, let highest = stored.last {
            let rows =
                level == 0
                ? try await connection.query(
                    """
                    SELECT position, leaf_hash FROM authlog.log_leaves
                    WHERE position BETWEEN \(lowest.storingPosition) AND \(highest.storingPosition)
                    """
                )
                : try await connection.query(
                    """
                    SELECT position, subtree_hashes FROM authlog.log_leaves
                    WHERE position = ANY(\(ArrayLiteral(stored.map(\.storingPosition)))::bigint[])
                    """
                )
            var byPosition: [Int64: [UInt8]] = [:]
            for row in rows.rows {
                byPosition[try row.decode(Int64.self, at: 0)] = try row.decode(ByteaValue.self, at: 1).bytes
            }
            let offset = max(level - 1, 0) * 32
            for node in stored {
                guard let bytes = byPosition[node.storingPosition], offset + 32 <= bytes.count else {
                    throw StoreError(.schema, "node \(node.level)/\(node.index) of \(tile) is missing from log_leaves")
                }
                hashes[node] = Array(bytes[offset..<offset + 32])
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(tile.width * 32)
        for node in nodes {
            guard let hash = hashes[node] else {
                throw StoreError(.schema, "node \(node.level)/\(node.index) of \(tile) is missing")
            }
            bytes += hash
        }
        return bytes
    }

    private static func entries(
        _ tile: TilePath,
        anchor: LogAnchor?,
        on connection: Connection
    ) async throws
        -> [UInt8]
    {
        let first = tile.index * Int64(TilePath.width) + 1
        let last = first + Int64(tile.width) - 1
        let dropped = anchor?.size ?? 0
        var bytes: [UInt8] = []
        bytes.reserveCapacity(tile.width * 42)
        func append(_ position: Int64, _ digest: [UInt8]) {
            let data = MerkleTree.leafData(position: position, digest: digest)
            bytes += [UInt8(data.count >> 8), UInt8(data.count & 0xff)] + data
        }
        var expected = first
        while expected <= min(last, dropped) {
            guard let digest = anchor?.edge?.digest(ofPosition: expected) else {
                throw StoreError(.dropped, "\(tile) holds positions that retention dropped (1…\(dropped))")
            }
            append(expected, digest)
            expected += 1
        }
        guard expected <= last else { return bytes }
        let rows = try await connection.query(
            """
            SELECT l.position, e.digest FROM authlog.log_leaves l
            JOIN authlog.event_records e ON e.event_id = l.event_id AND e.log_month = l.log_month
            WHERE l.position BETWEEN \(expected) AND \(last) ORDER BY l.position
            """
        )
        for row in rows.rows {
            let position = try row.decode(Int64.self, at: 0)
            let digest = try row.decode(ByteaValue.self, at: 1).bytes
            guard position == expected, digest.count == 32 else {
                throw StoreError(.schema, "position \(expected) of \(tile) is missing from the log")
            }
            append(position, digest)
            expected += 1
        }
        guard expected == last + 1 else {
            throw StoreError(.schema, "position \(expected) of \(tile) is missing from the log")
        }
        return bytes
    }
}
