-- View authlog.report_rollups: its current definition (last changed by migrations/0010_dashboard_views.sql).
-- The roll-ups as a report reads them: folded counts and pending counts, several rows per key possible
-- (sum n). The sealer folds in one transaction, so a snapshot sees a count either pending or folded, once.
CREATE OR REPLACE VIEW authlog.report_rollups AS
    SELECT hour, metric, provider, client_id, detail, n FROM authlog.report_counts
    UNION ALL
    SELECT hour, metric, provider, client_id, detail, n FROM authlog.report_pending;
