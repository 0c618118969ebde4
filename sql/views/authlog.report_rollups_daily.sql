-- View authlog.report_rollups_daily: its current definition (last changed by migrations/0010_dashboard_views.sql).
-- The same by UTC day, from the daily roll-ups (365 rows a year per key instead of 8,760), for the views by
-- day.
CREATE OR REPLACE VIEW authlog.report_rollups_daily AS
    SELECT day, metric, provider, client_id, detail, n FROM authlog.report_counts_daily
    UNION ALL
    SELECT date_trunc('day', hour, 'UTC'), metric, provider, client_id, detail, n FROM authlog.report_pending;
