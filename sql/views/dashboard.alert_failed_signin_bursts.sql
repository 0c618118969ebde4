-- View dashboard.alert_failed_signin_bursts: its current definition (last changed by migrations/0010_dashboard_views.sql).
-- Alert: at least 10 failed sign-ins from one IP address for one provider within the last 15 minutes
-- (committed events, sealed or not). ip is NULL for events without one (ingested from another system).
CREATE OR REPLACE VIEW dashboard.alert_failed_signin_bursts AS
    SELECT provider, ip, count(*)::bigint AS failures, min(occurred_at) AS first_at, max(occurred_at) AS last_at
    FROM authlog.event_records
    WHERE type = 'signin.failed' AND occurred_at >= now() - interval '15 minutes'
    GROUP BY provider, ip
    HAVING count(*) >= 10;
