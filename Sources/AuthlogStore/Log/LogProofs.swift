import AuthlogCore
public import AuthlogPostgres

/// Inclusion and consistency proofs read from the sealed log: each proof plans the complete-subtree nodes it
/// needs (``MerkleProof``) and reads them in one query by position, O(log n) rows.
public enum LogProofs {
    /// An inclusion proof: the audit path of one leaf in the tree of `treeSize` leaves.
    public struct Inclusion: Sendable, Equatable {
        /// The leaf's position (1-based; its leaf index is `position − 1`).
        public var position: Int64
        /// The tree size the proof is for.
        public var treeSize: Int64
        /// The leaf hash.
        public var leafHash: [UInt8]
        /// The tree's root hash at `treeSize`.
        public var root: [UInt8]
        /// The audit path, bottom up (RFC 9162 §2.1.3).
        public var hashes: [[UInt8]]
    }

    /// A consistency proof between two tree sizes.
    public struct Consistency: Sendable, Equatable {
        /// The older size.
        public var from: Int64
        /// The newer size.
        public var to: Int64
        /// The root at `from`.
        public var fromRoot: [UInt8]
        /// The root at `to`.
        public var toRoot: [UInt8]
        /// The proof (RFC 9162 §2.1.4).
        public var hashes: [[UInt8]]
    }

    /// The inclusion proof of the event at `position` in the tree of `treeSize` leaves (nil: every sealed event).
    /// - Throws: ``StoreError`` `.outOfRange` unless 1 ≤ position ≤ treeSize ≤ the sealed size.
    public static func inclusion(position: Int64, treeSize: Int64?, on connection: Connection) async throws -> Inclusion
    {
        let sealed = try await self.checkSize(treeSize, on: connection)
        let treeSize = treeSize ?? sealed
        guard position >= 1, position <= treeSize else {
            throw StoreError(.outOfRange, "position must be between 1 and the tree size \(treeSize)")
        }
        let anchor = try await LogAnchor.latest(on: connection)
        if let anchor, position <= anchor.size {
            throw StoreError(
                .dropped,
                "position \(position) was dropped by retention (positions 1…\(anchor.size)); it cannot be proved"
            )
        }
        let leaf = MerkleProof.Range(start: position - 1, end: position)
        let ranges = MerkleProof.inclusion(index: position - 1, size: treeSize)
        let whole = MerkleProof.Range(start: 0, end: treeSize)
        let nodes = try await self.nodes(for: ranges + [leaf, whole], anchor: anchor, on: connection)
        return Inclusion(
            position: position,
            treeSize: treeSize,
            leafHash: try self.hash(of: leaf, nodes),
            root: try self.hash(of: whole, nodes),
            hashes: try ranges.map { try self.hash(of: $0, nodes) }
        )
    }

    /// The consistency proof from the tree of `from` leaves to the tree of `to` leaves.
    /// - Throws: ``StoreError`` `.outOfRange` unless 1 ≤ from ≤ to ≤ the sealed size.
    public static func consistency(from: Int64, to: Int64, on connection: Connection) async throws -> Consistency {
        _ = try await self.checkSize(to, on: connection)
        guard from >= 1, from <= to else {
            throw StoreError(.outOfRange, "from must be between 1 and to (\(to))")
        }
        let anchor = try await LogAnchor.latest(on: connection)
        if let anchor, from < anchor.size {
            throw StoreError(
                .dropped,
                "tree sizes below \(anchor.size) lie in positions dropped by retention; prove from \(anchor.size) or later"
            )
        }
        let ranges = MerkleProof.consistency(oldSize: from, newSize: to)
        let old = MerkleProof.Range(start: 0, end: from)
        let new = MerkleProof.Range(start: 0, end: to)
        let nodes = try await self.nodes(for: ranges + [old, new], anchor: anchor, on: connection)
        return Consistency(
            from: from,
            to: to,
            fromRoot: try self.hash(of: old, nodes),
            toRoot: try self.hash(of: new, nodes),
            hashes: try ranges.map { try self.hash(of: $0, nodes) }
        )
    }

    /// The root hash of the tree of `size` leaves (the empty tree's for 0).
    /// - Throws: ``StoreError`` `.outOfRange` beyond the sealed size.
    public static func root(size: Int64, on connection: Connection) async throws -> [UInt8] {
        _ = try await self.checkSize(size, on: connection)
        guard size > 0 else { return MerkleTree.emptyRoot }
        let anchor = try await LogAnchor.latest(on: connection)
        if let anchor, size < anchor.size {
            throw StoreError(.dropped, "the tree of \(size) events lies in positions dropped by retention")
        }
        let whole = MerkleProof.Range(start: 0, end: size)
        return try self.hash(of: whole, try await self.nodes(for: [whole], anchor: anchor, on: connection))
    }

    /// The frontier of the tree of `size` leaves (its maximal complete subtrees), from the stored nodes and the
    /// latest retention anchor: what retention keeps when it drops positions 1…`size`.
    /// - Throws: ``StoreError`` `.schema` when a node is missing.
    static func frontier(size: Int64, on connection: Connection) async throws -> MerkleFrontier {
        guard size > 0 else { return MerkleFrontier() }
        let anchor = try await LogAnchor.latest(on: connection)
        let nodes = MerkleProof.nodes(of: MerkleProof.Range(start: 0, end: size))
        let hashes = try await self.nodes(for: [MerkleProof.Range(start: 0, end: size)], anchor: anchor, on: connection)
        var bytes: [UInt8] = []
        for node in nodes {
            guard let hash = hashes[node] else {
                throw StoreError(.schema, "a node of the first \(size) leaves is missing from authlog.log_leaves")
            }
            bytes += hash
        }
        guard let frontier = MerkleFrontier(size: size, bytes: bytes) else {
            throw StoreError(.schema, "the nodes of the first \(size) leaves do not make a frontier")
        }
        return frontier
    }

    /// The sealed size, after checking that `size` (when given) does not exceed it.
    private static func checkSize(_ size: Int64?, on connection: Connection) async throws -> Int64 {
        let sealed = try await EventReader().head(on: connection).size
        if let size, size < 0 || size > sealed {
            throw StoreError(.outOfRange, "the log has \(sealed) sealed events; tree size \(size) does not exist")
        }
        return sealed
    }

    private static func hash(of range: MerkleProof.Range, _ nodes: [MerkleNodeID: [UInt8]]) throws -> [UInt8] {
        guard let hash = MerkleProof.hash(of: range, nodes: nodes) else {
            throw StoreError(
                .schema,
                "a node of leaves \(range.start + 1)…\(range.end) is missing from authlog.log_leaves"
            )
        }
        return hash
    }

    /// Reads the nodes the ranges are made of, in one query; those wholly in positions retention dropped come
    /// from its anchor.
    private static func nodes(
        for ranges: [MerkleProof.Range],
        anchor: LogAnchor?,
        on connection: Connection
    ) async throws -> [MerkleNodeID: [UInt8]] {
        try await self.nodes(Set(ranges.flatMap(MerkleProof.nodes(of:))), anchor: anchor, on: connection)
    }

    /// Reads the `wanted` nodes that are stored, in one query; those wholly in positions retention dropped come
    /// from its anchor. A node found in neither is left out.
    static func nodes(
        _ wanted: Set<MerkleNodeID>,
        anchor: LogAnchor?,
        on connection: Connection
    ) async throws -> [MerkleNodeID: [UInt8]] {
        var wanted = wanted
        var nodes: [MerkleNodeID: [UInt8]] = [:]
        if let anchor {
            for (node, hash) in anchor.nodes where wanted.contains(node) {
                nodes[node] = hash
                wanted.remove(node)
            }
        }
        let positions = Set(wanted.map(\.storingPosition))
        let rows = try await connection.query(
            """
            SELECT position, leaf_hash, subtree_hashes FROM authlog.log_leaves
            WHERE position = ANY(\(ArrayLiteral(positions.sorted()))::bigint[])
            """
        )
        var stored: [Int64: (leaf: [UInt8], subtrees: [UInt8])] = [:]
        for row in rows.rows {
            stored[try row.decode(Int64.self, at: 0)] = (
                try row.decode(ByteaValue.self, at: 1).bytes, try row.decode(ByteaValue.self, at: 2).bytes
            )
        }
        for node in wanted {
            guard let row = stored[node.storingPosition] else { continue }
            if node.level == 0 {
                nodes[node] = row.leaf
            } else {
                let offset = (node.level - 1) * 32
                guard offset + 32 <= row.subtrees.count else { continue }
                nodes[node] = Array(row.subtrees[offset..<offset + 32])
            }
        }
        return nodes
    }
}
