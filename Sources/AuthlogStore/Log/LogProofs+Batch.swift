import AuthlogCore
public import AuthlogPostgres
import AuthlogTransparency

extension LogProofs {
    /// The audit paths of the events at `positions` in the tree of `treeSize` leaves, by position, from one read
    /// of the nodes they all need (a page of consecutive events shares most of them).
    ///
    /// Positions outside 1…`treeSize`, or dropped by retention, get no path.
    /// - Throws: ``StoreError`` `.outOfRange` when `treeSize` exceeds the sealed size, `.schema` when a stored
    ///   node is missing.
    public static func inclusionPaths(
        positions: [Int64],
        treeSize: Int64,
        on connection: Connection
    ) async throws -> [Int64: [[UInt8]]] {
        let sealed = try await EventReader().head(on: connection).size
        guard treeSize <= sealed else {
            throw StoreError(.outOfRange, "the log has \(sealed) sealed events; tree size \(treeSize) does not exist")
        }
        let anchor = try await LogAnchor.latest(on: connection)
        let provable = positions.filter { $0 >= 1 && $0 <= treeSize && $0 > (anchor?.size ?? 0) }
        guard !provable.isEmpty else { return [:] }
        var ranges: [Int64: [MerkleProof.Range]] = [:]
        for position in provable {
            ranges[position] = MerkleProof.inclusion(index: position - 1, size: treeSize)
        }
        let nodes = try await self.nodes(for: ranges.values.flatMap { $0 }, anchor: anchor, on: connection)
        return try ranges.mapValues { try $0.map { try self.hash(of: $0, nodes) } }
    }
}
