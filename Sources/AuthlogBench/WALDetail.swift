import AuthlogPostgres
import Foundation

/// Where a measurement's WAL went, read with `pg_walinspect` between two LSNs: bytes per event by record type
/// (full-page images apart) and by relation, the largest first. For `authlog-bench store --wal-detail`.
enum WALDetail {
    /// The cluster's current WAL position, as `pg_lsn` text.
    static func position(on connection: Connection) async throws -> String {
        try await connection.query("SELECT pg_current_wal_lsn()::text").rows.first?.decode(String.self, at: 0)
            ?? "0/0"
    }

    /// Prints the WAL written from `start` to `end` per event of `events`, the relations named from `database`.
    static func report(
        _ label: String,
        from start: String,
        to end: String,
        events: Double,
        cluster: String,
        database: String
    ) async throws {
        let connection = try await Connection.connect(cluster)
        try await connection.execute("CREATE EXTENSION IF NOT EXISTS pg_walinspect")
        let types = try await connection.query(
            """
            SELECT "resource_manager/record_type", count::bigint, record_size::bigint, fpi_size::bigint
            FROM pg_get_wal_stats(\(start)::pg_lsn, \(end)::pg_lsn, true)
            WHERE count > 0 ORDER BY combined_size DESC LIMIT 14
            """
        )
        say("  \(label): WAL per event by record type (records, record bytes + full-page images)")
        for row in types.rows {
            say(
                "    " + Self.padded(try row.decode(String.self, at: 0), 30)
                    + String(
                        format: "%6.2f  %6.0f B + %5.0f B",
                        Double(try row.decode(Int64.self, at: 1)) / events,
                        Double(try row.decode(Int64.self, at: 2)) / events,
                        Double(try row.decode(Int64.self, at: 3)) / events
                    )
            )
        }
        // Each record counted once, at the relation of its first block.
        let nodes = try await connection.query(
            """
            SELECT coalesce(substring(block_ref FROM 'rel \\d+/\\d+/(\\d+)'), '-') AS node,
                   count(*)::bigint, sum(record_length)::bigint
            FROM pg_get_wal_records_info(\(start)::pg_lsn, \(end)::pg_lsn)
            GROUP BY 1 ORDER BY 3 DESC LIMIT 16
            """
        )
        let names = try await Connection.connect(database)
        say("  \(label): WAL per event by relation of the record's first block (records, bytes)")
        for row in nodes.rows {
            let node = try row.decode(String.self, at: 0)
            var name = node == "-" ? "(no block: commits, …)" : node
            if let number = UInt32(node) {
                let found = try await names.query(
                    "SELECT coalesce(pg_filenode_relation(0, \(Int64(number))::oid)::text, '?')"
                ).rows.first?.decode(String.self, at: 0)
                name = found.map { $0 == "?" ? "filenode \(node)" : $0 } ?? name
            }
            say(
                "    " + Self.padded(name, 46)
                    + String(
                        format: "%6.2f  %6.0f B",
                        Double(try row.decode(Int64.self, at: 1)) / events,
                        Double(try row.decode(Int64.self, at: 2)) / events
                    )
            )
        }
    }

    private static func padded(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}
