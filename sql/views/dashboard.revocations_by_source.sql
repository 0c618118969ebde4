-- View dashboard.revocations_by_source: its current definition (last changed by migrations/0010_dashboard_views.sql).
-- Sessions revoked per UTC day, by source: a session.ended roll-up whose cause is neither logout nor expiry
-- (reuse, deletion, user, admin, provider_notice, credential_state, other; authlog.session_end_cause).
CREATE OR REPLACE VIEW dashboard.revocations_by_source AS
    SELECT (day AT TIME ZONE 'UTC')::date AS day, provider, detail AS source, sum(n)::bigint AS revocations
    FROM authlog.report_rollups_daily
    WHERE metric = 'session.ended' AND detail NOT IN ('logout', 'expiry')
    GROUP BY 1, 2, 3;
