import AuthlogPostgres

/// PostgreSQL's time (planning and execution) and WAL per request, by statement, from `pg_stat_statements`: the
/// profile that says where a run's PostgreSQL CPU went (`authlog-bench service --alerts-only --statements`).
/// The server must preload the module (`shared_preload_libraries = 'pg_stat_statements'`,
/// `pg_stat_statements.track_planning = on` for planning times; `.ci/test-postgres` passes them from
/// `AUTHLOG_TEST_PG_OPTIONS`).
enum StatementTimes {
    /// Creates the extension when missing and forgets what it counted so far.
    /// - Throws: ``BenchFailure`` when the server does not preload the module.
    static func reset(on connection: Connection) async throws {
        do {
            try await connection.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
            try await connection.execute("SELECT pg_stat_statements_reset()")
        } catch {
            throw BenchFailure(
                "--statements needs pg_stat_statements in shared_preload_libraries: \(error)"
            )
        }
    }

    /// The `count` statements that took the most time since ``reset(on:)``, each as one line: microseconds
    /// (planning and execution) and WAL bytes per request (`requests`), calls, and the statement's start.
    static func top(_ count: Int, per requests: Int, on connection: Connection) async throws -> [String] {
        let per = Double(max(requests, 1))
        let rows = try await connection.query(
            """
            SELECT ((total_plan_time + total_exec_time) * 1000 / \(per))::bigint,
                   (total_plan_time * 1000 / \(per))::bigint, calls, (wal_bytes / \(per))::bigint,
                   left(regexp_replace(query, '\\s+', ' ', 'g'), 100)
            FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
            ORDER BY total_plan_time + total_exec_time DESC LIMIT \(Int64(count))
            """
        ).rows
        return try rows.map { row in
            let total = try row.decode(Int64.self, at: 0)
            let planning = try row.decode(Int64.self, at: 1)
            let calls = try row.decode(Int64.self, at: 2)
            let wal = try row.decode(Int64.self, at: 3)
            let text = try row.decode(String.self, at: 4)
            return "\(total) us (\(planning) planning), \(wal) B WAL per request, \(calls) calls: \(text)"
        }
    }
}
