-- View dashboard.sessions_daily: its current definition (last changed by migrations/0010_dashboard_views.sql).
-- Sessions started and ended per UTC day (a session's end counts on the day it ended), by how they ended:
-- ended_revocation is every revocation other than reuse and deletion (user, admin, provider_notice,
-- credential_state, other), so the ended_* columns add up to every session that ended.
CREATE OR REPLACE VIEW dashboard.sessions_daily AS
    SELECT (day AT TIME ZONE 'UTC')::date AS day,
           provider,
           coalesce(sum(n) FILTER (WHERE metric = 'session.started'), 0)::bigint AS started,
           coalesce(sum(n) FILTER (WHERE metric = 'session.ended' AND detail = 'logout'), 0)::bigint
               AS ended_logout,
           coalesce(sum(n) FILTER (WHERE metric = 'session.ended' AND detail = 'expiry'), 0)::bigint
               AS ended_expiry,
           coalesce(sum(n) FILTER (WHERE metric = 'session.ended'
                                     AND detail NOT IN ('logout', 'expiry', 'reuse', 'deletion')), 0)::bigint
               AS ended_revocation,
           coalesce(sum(n) FILTER (WHERE metric = 'session.ended' AND detail = 'reuse'), 0)::bigint
               AS ended_reuse,
           coalesce(sum(n) FILTER (WHERE metric = 'session.ended' AND detail = 'deletion'), 0)::bigint
               AS ended_deletion
    FROM authlog.report_rollups_daily
    WHERE metric IN ('session.started', 'session.ended')
    GROUP BY 1, 2;
