-- View dashboard.alert_refresh_reuse: its current definition (last changed by migrations/0010_dashboard_views.sql).
-- Alert: every reuse of a rotated refresh token in the last 24 hours (RFC 9700 §4.14: a stolen token).
CREATE OR REPLACE VIEW dashboard.alert_refresh_reuse AS
    SELECT occurred_at, provider, user_id, session_id, ip
    FROM authlog.event_records
    WHERE type = 'token.reuse_detected' AND occurred_at >= now() - interval '24 hours';
