-- View dashboard.failed_signins_by_reason: its current definition (last changed by migrations/0010_dashboard_views.sql).
-- The two views of migrations 3 and 6 that counted events, now over the roll-ups, with the same columns.
-- failed_signins_by_reason: the same counts, now also of committed events not sealed yet and of dropped
-- months.
CREATE OR REPLACE VIEW dashboard.failed_signins_by_reason AS
    SELECT (day AT TIME ZONE 'UTC')::date AS day, nullif(provider, '') AS provider, detail AS reason,
           sum(n)::bigint AS failures
    FROM authlog.report_rollups_daily
    WHERE metric = 'signin.failed'
    GROUP BY 1, 2, 3;
