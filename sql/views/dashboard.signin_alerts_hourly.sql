-- View dashboard.signin_alerts_hourly: its current definition (last changed by migrations/0031_signin_alert_counts.sql).
-- Sign-ins and refreshes judged unusual (signin.flagged) per UTC hour, one row per judgement (new_device,
-- new_country, new_region, impossible_travel, hosting_network) and decision (recorded, reauthenticated,
-- reauthentication_required, denied), from the roll-ups.
CREATE OR REPLACE VIEW dashboard.signin_alerts_hourly AS
    SELECT hour,
           nullif(provider, '') AS provider,
           nullif(client_id, '') AS client_id,
           split_part(detail, '/', 1) AS judgement,
           split_part(detail, '/', 2) AS decision,
           sum(n)::bigint AS alerts
    FROM authlog.report_rollups
    WHERE metric = 'signin.flagged'
    GROUP BY hour, provider, client_id, detail;
