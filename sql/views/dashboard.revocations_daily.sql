-- View dashboard.revocations_daily: its current definition (last changed by migrations/0010_dashboard_views.sql).
-- revocations_daily: now sessions revoked (one per session, as revocations_by_source counts them) instead of
-- revocation events. type is the kind of end, as sessions_daily's columns name it: 'reuse', 'deletion' or
-- 'revocation'; reason is the source (reuse, deletion, user, admin, provider_notice, credential_state,
-- other).
CREATE OR REPLACE VIEW dashboard.revocations_daily AS
    SELECT (day AT TIME ZONE 'UTC')::date AS day,
           CASE WHEN detail IN ('reuse', 'deletion') THEN detail ELSE 'revocation' END AS type,
           detail AS reason,
           sum(n)::bigint AS revocations
    FROM authlog.report_rollups_daily
    WHERE metric = 'session.ended' AND detail NOT IN ('logout', 'expiry')
    GROUP BY 1, 2, 3;
