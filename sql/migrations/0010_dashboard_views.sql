-- Dashboards over the report roll-ups (migration 9), and alert views over the latest events
-- (docs/dashboards.md lists every view with its columns; deploy/grafana-dashboard.json has a panel for each).
--
-- The views that count read the hourly roll-ups, never the events: folded counts plus the pending ones the
-- sealer has not folded yet (authlog.report_rollups below), summed. They therefore count every committed
-- event, sealed or not, and keep counting the months retention dropped (the roll-ups stay).
--
-- The alert views (SOC 2 CC7.2, PCI DSS 10.4.1.1: review of security events) read only the last minutes or
-- hours of authlog.event_records through its (type, occurred_at) index, or the roll-ups of the last eight
-- days: each is cheap enough for a dashboard that refreshes every minute. Their thresholds are constants
-- here, documented in docs/dashboards.md ("Alert views").
--
-- Views run with their owner's rights: authlog_reader reads these views and still nothing in schema authlog.

-- The roll-ups as a report reads them: folded counts and pending counts, several rows per key possible
-- (sum n). The sealer folds in one transaction, so a snapshot sees a count either pending or folded, once.
CREATE VIEW authlog.report_rollups AS
    SELECT hour, metric, provider, client_id, detail, n FROM authlog.report_counts
    UNION ALL
    SELECT hour, metric, provider, client_id, detail, n FROM authlog.report_pending;

-- The same by UTC day, from the daily roll-ups (365 rows a year per key instead of 8,760), for the views by
-- day.
CREATE VIEW authlog.report_rollups_daily AS
    SELECT day, metric, provider, client_id, detail, n FROM authlog.report_counts_daily
    UNION ALL
    SELECT date_trunc('day', hour, 'UTC'), metric, provider, client_id, detail, n FROM authlog.report_pending;

-- Sign-in attempts per UTC hour. provider and client_id are NULL when the event had none; reason is a
-- failure's reason, NULL for a success.
CREATE VIEW dashboard.signins_hourly AS
    SELECT hour,
           nullif(provider, '') AS provider,
           nullif(client_id, '') AS client_id,
           CASE metric WHEN 'signin.succeeded' THEN 'success' ELSE 'failure' END AS outcome,
           nullif(detail, '') AS reason,
           sum(n)::bigint AS signins
    FROM authlog.report_rollups
    WHERE metric IN ('signin.succeeded', 'signin.failed')
    GROUP BY hour, provider, client_id, metric, detail;

-- Sessions started and ended per UTC day (a session's end counts on the day it ended), by how they ended:
-- ended_revocation is every revocation other than reuse and deletion (user, admin, provider_notice,
-- credential_state, other), so the ended_* columns add up to every session that ended.
CREATE VIEW dashboard.sessions_daily AS
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

-- Sessions revoked per UTC day, by source: a session.ended roll-up whose cause is neither logout nor expiry
-- (reuse, deletion, user, admin, provider_notice, credential_state, other; authlog.session_end_cause).
CREATE VIEW dashboard.revocations_by_source AS
    SELECT (day AT TIME ZONE 'UTC')::date AS day, provider, detail AS source, sum(n)::bigint AS revocations
    FROM authlog.report_rollups_daily
    WHERE metric = 'session.ended' AND detail NOT IN ('logout', 'expiry')
    GROUP BY 1, 2, 3;

-- The two views of migrations 3 and 6 that counted events, now over the roll-ups, with the same columns.
-- failed_signins_by_reason: the same counts, now also of committed events not sealed yet and of dropped
-- months.
CREATE OR REPLACE VIEW dashboard.failed_signins_by_reason AS
    SELECT (day AT TIME ZONE 'UTC')::date AS day, nullif(provider, '') AS provider, detail AS reason,
           sum(n)::bigint AS failures
    FROM authlog.report_rollups_daily
    WHERE metric = 'signin.failed'
    GROUP BY 1, 2, 3;

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

-- Alert: at least 10 failed sign-ins from one IP address for one provider within the last 15 minutes
-- (committed events, sealed or not). ip is NULL for events without one (ingested from another system).
CREATE VIEW dashboard.alert_failed_signin_bursts AS
    SELECT provider, ip, count(*)::bigint AS failures, min(occurred_at) AS first_at, max(occurred_at) AS last_at
    FROM authlog.event_records
    WHERE type = 'signin.failed' AND occurred_at >= now() - interval '15 minutes'
    GROUP BY provider, ip
    HAVING count(*) >= 10;

-- Alert: every reuse of a rotated refresh token in the last 24 hours (RFC 9700 §4.14: a stolen token).
CREATE VIEW dashboard.alert_refresh_reuse AS
    SELECT occurred_at, provider, user_id, session_id, ip
    FROM authlog.event_records
    WHERE type = 'token.reuse_detected' AND occurred_at >= now() - interval '24 hours';

-- Alert: the UTC hours of the last 24 (the current one included) whose revocations (as revocations_by_source
-- counts them, all providers) are at least 20 and more than 3 times the trailing average: the revocations
-- of the 168 hours before that hour, divided by 168.
CREATE VIEW dashboard.alert_revocation_spikes AS
    WITH hourly AS (
        SELECT hour, sum(n)::bigint AS revocations
        FROM authlog.report_rollups
        WHERE metric = 'session.ended' AND detail NOT IN ('logout', 'expiry')
          AND hour >= date_trunc('hour', now(), 'UTC') - interval '23 hours' - interval '7 days'
        GROUP BY hour
    )
    SELECT h.hour, h.revocations, round(t.average, 2) AS trailing_average
    FROM hourly h
    CROSS JOIN LATERAL (
        SELECT coalesce(sum(p.revocations), 0)::numeric / 168 AS average
        FROM hourly p
        WHERE p.hour >= h.hour - interval '7 days' AND p.hour < h.hour
    ) t
    WHERE h.hour >= date_trunc('hour', now(), 'UTC') - interval '23 hours'
      AND h.revocations >= 20
      AND h.revocations > 3 * t.average;

GRANT SELECT ON authlog.report_rollups, authlog.report_rollups_daily TO authlog_app;
GRANT SELECT ON dashboard.signins_hourly, dashboard.sessions_daily, dashboard.revocations_by_source,
    dashboard.alert_failed_signin_bursts, dashboard.alert_refresh_reuse, dashboard.alert_revocation_spikes
    TO authlog_reader;
