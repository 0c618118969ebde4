-- View dashboard.active_sessions: its current definition (last changed by migrations/0003_create_dashboard_views.sql).
CREATE OR REPLACE VIEW dashboard.active_sessions AS
    SELECT session_id, user_id, provider, client_id, started_at, last_seen_at
    FROM authlog.sessions
    WHERE state = 'active';
