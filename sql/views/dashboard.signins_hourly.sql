-- View dashboard.signins_hourly: its current definition (last changed by migrations/0010_dashboard_views.sql).
-- Sign-in attempts per UTC hour. provider and client_id are NULL when the event had none; reason is a
-- failure's reason, NULL for a success.
CREATE OR REPLACE VIEW dashboard.signins_hourly AS
    SELECT hour,
           nullif(provider, '') AS provider,
           nullif(client_id, '') AS client_id,
           CASE metric WHEN 'signin.succeeded' THEN 'success' ELSE 'failure' END AS outcome,
           nullif(detail, '') AS reason,
           sum(n)::bigint AS signins
    FROM authlog.report_rollups
    WHERE metric IN ('signin.succeeded', 'signin.failed')
    GROUP BY hour, provider, client_id, metric, detail;
