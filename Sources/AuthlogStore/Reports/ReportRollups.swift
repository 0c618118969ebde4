public import AuthlogPostgres

/// The report roll-ups' upkeep (migration 9): the writers' statements append counts to
/// `authlog.report_pending`; folding moves them into the hourly and daily counts. Reports read the pending
/// counts too, so folding only keeps that table short; `serve` folds every second.
public enum ReportRollups {
    /// Folds every pending count; returns how many counted rows it wrote.
    /// - Throws: ``StoreError`` from the server.
    @discardableResult
    public static func fold(using pool: ConnectionPool) async throws -> Int64 {
        try await pool.withConnection { connection in
            try await connection.query("SELECT authlog.fold_report_counts()").first?.decode(Int64.self, at: 0) ?? 0
        }
    }
}
