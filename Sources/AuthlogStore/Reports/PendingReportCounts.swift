/// The report roll-ups' counts that the write path's own statements append to `authlog.report_pending`, in the
/// statement that inserts or changes the counted rows (a data-modifying `WITH`), so that no trigger runs and no
/// transition table is filled on the write path (issue 37). `serve` folds the pending counts every second
/// (`authlog.fold_report_counts`); `authlog.recount_reports` counts the same things again from
/// `authlog.report_items`.
enum PendingReportCounts {
    /// The columns of `authlog.event_records` that the events' counts read, as the writer's INSERT returns them
    /// into the `WITH` query `inserted`.
    static let eventColumns = "type, occurred_at, outcome, reason, provider, client_id, data"

    /// The INSERT that counts, among the rows of `inserted`, the sign-ins (by hour, type, provider, client and
    /// failure reason), the refused requests (by hour, provider, client and ``RefusalReason`` detail) and the
    /// judgements of `signin.flagged` (by hour, provider, client and `<judgement>/<decision>`) of a batch whose
    /// events have the types `types`; nil when none of them is counted. The statement carries only the branches
    /// those types need: the server sets up every branch of a statement on each execution, whether rows reach
    /// it or not, and the three branches' aggregates and joins were a tenth of its CPU on a small batch.
    static func events(ofTypes types: Set<String>) -> String? {
        let branches = Self.eventBranches.filter { !$0.types.isDisjoint(with: types) }.map(\.sql)
        guard !branches.isEmpty else { return nil }
        return "INSERT INTO authlog.report_pending (hour, metric, provider, client_id, detail, n)\n"
            + branches.joined(separator: "\nUNION ALL\n")
    }

    /// Each counted kind of event: the types it counts (those its `WHERE` selects) and its `SELECT`.
    private static let eventBranches: [(types: Set<String>, sql: String)] = [
        (
            ["signin.succeeded", "signin.failed"],
            """
            SELECT date_trunc('hour', occurred_at, 'UTC'), type, coalesce(provider, ''), coalesce(client_id, ''),
                   authlog.signin_detail(type, reason), count(*)
            FROM inserted
            WHERE type IN ('signin.succeeded', 'signin.failed')
            GROUP BY 1, 2, 3, 4, 5
            """
        ),
        (
            ["ratelimit.exceeded", "request.refused", "audit.accessed"],
            """
            SELECT date_trunc('hour', i.occurred_at, 'UTC'), 'refused', coalesce(i.provider, ''),
                   coalesce(i.client_id, ''), r.detail, sum(r.n)
            FROM inserted i
            CROSS JOIN LATERAL authlog.refusal_items(i.type, i.outcome, i.reason, i.data) AS r
            WHERE i.type IN ('ratelimit.exceeded', 'request.refused', 'audit.accessed')
            GROUP BY 1, 3, 4, 5
            """
        ),
        (
            ["signin.flagged"],
            """
            SELECT date_trunc('hour', i.occurred_at, 'UTC'), 'signin.flagged', coalesce(i.provider, ''),
                   coalesce(i.client_id, ''), coalesce(j.value->>'kind', '') || '/' || coalesce(i.data->>'decision', ''),
                   count(*)
            FROM inserted i
            CROSS JOIN LATERAL jsonb_array_elements(CASE jsonb_typeof(i.data->'judgements')
                                                        WHEN 'array' THEN i.data->'judgements' ELSE '[]' END) AS j
            WHERE i.type = 'signin.flagged'
            GROUP BY 1, 3, 4, 5
            """
        ),
    ]

    /// What a projection statement on `authlog.sessions` counts: the rows it returns into the `WITH` query
    /// `changed`, and the INSERT that counts them. A statement that ends sessions names the table `t`.
    enum Sessions {
        /// Sessions started, by hour, provider and client.
        case started
        /// Sessions that left `active`, by hour, provider, client and end cause.
        case ended

        /// The `RETURNING` list of the counted statement.
        var returning: String {
            switch self {
            case .started: "started_at, provider, client_id"
            case .ended: "t.ended_at, t.provider, t.client_id, t.state, t.end_reason"
            }
        }

        /// The INSERT into `authlog.report_pending` that reads `changed`.
        var count: String {
            switch self {
            case .started:
                """
                INSERT INTO authlog.report_pending (hour, metric, provider, client_id, detail, n)
                SELECT date_trunc('hour', started_at, 'UTC'), 'session.started', provider, coalesce(client_id, ''), '',
                       count(*)
                FROM changed
                GROUP BY 1, 3, 4
                """
            case .ended:
                """
                INSERT INTO authlog.report_pending (hour, metric, provider, client_id, detail, n)
                SELECT date_trunc('hour', ended_at, 'UTC'), 'session.ended', provider, coalesce(client_id, ''),
                       authlog.session_end_cause(state, end_reason), count(*)
                FROM changed
                WHERE state <> 'active'
                GROUP BY 1, 3, 4, 5
                """
            }
        }
    }
}
