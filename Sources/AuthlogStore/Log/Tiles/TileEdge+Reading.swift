import AuthlogCore
import AuthlogPostgres

extension TileEdge {
    /// The edge of the first `size` positions, read before retention drops them: the hashes from the stored nodes,
    /// the digests from the events, and what an earlier run dropped from its anchor `previous`. Nil when a value is
    /// in neither (the previous anchor was stored before migration 25 kept edges).
    /// - Throws: ``StoreError`` from the database.
    static func read(size: Int64, previous: LogAnchor?, on connection: Connection) async throws -> TileEdge? {
        let levels = Self.counts(size: size).count
        let wanted = Set((1..<levels).flatMap { Self.nodeIDs(size: size, level: $0) })
        let nodes = try await LogProofs.nodes(wanted, anchor: previous, on: connection)
        var hashes: [[[UInt8]]] = []
        for level in 1..<levels {
            var values: [[UInt8]] = []
            for node in Self.nodeIDs(size: size, level: level) {
                guard let hash = nodes[node] else { return nil }
                values.append(hash)
            }
            hashes.append(values)
        }
        let first = (size & ~255) + 1
        var digests: [[UInt8]] = []
        if first <= size {
            let rows = try await connection.query(
                """
                SELECT l.position, e.digest FROM authlog.log_leaves l
                JOIN authlog.event_records e ON e.event_id = l.event_id AND e.log_month = l.log_month
                WHERE l.position BETWEEN \(first) AND \(size)
                """
            )
            var stored: [Int64: [UInt8]] = [:]
            for row in rows.rows {
                stored[try row.decode(Int64.self, at: 0)] = try row.decode(ByteaValue.self, at: 1).bytes
            }
            for position in first...size {
                guard let digest = stored[position] ?? previous?.edge?.digest(ofPosition: position) else { return nil }
                digests.append(digest)
            }
        }
        return TileEdge(size: size, digests: digests, hashes: hashes)
    }
}
