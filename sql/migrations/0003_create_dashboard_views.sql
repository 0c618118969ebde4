-- Dashboard views: stable column names for Grafana, Metabase and psql (documented in docs/dashboards.md).
-- authlog_reader may read these views and nothing else.

CREATE SCHEMA IF NOT EXISTS dashboard;

CREATE VIEW dashboard.signins_daily AS
    SELECT day, provider, outcome, signins
    FROM authlog.signins_daily;

CREATE VIEW dashboard.signins_by_provider AS
    SELECT provider,
           coalesce(sum(signins) FILTER (WHERE outcome = 'success'), 0)::bigint AS succeeded,
           coalesce(sum(signins) FILTER (WHERE outcome = 'failure'), 0)::bigint AS failed,
           min(day) AS first_day,
           max(day) AS last_day
    FROM authlog.signins_daily
    GROUP BY provider;

CREATE VIEW dashboard.active_sessions AS
    SELECT session_id, user_id, provider, client_id, started_at, last_seen_at
    FROM authlog.sessions
    WHERE state = 'active';

CREATE VIEW dashboard.failed_signins_by_reason AS
    SELECT (occurred_at AT TIME ZONE 'UTC')::date AS day, provider, reason, count(*)::bigint AS failures
    FROM authlog.events
    WHERE type = 'signin.failed'
    GROUP BY 1, 2, 3;

CREATE VIEW dashboard.revocations_daily AS
    SELECT (occurred_at AT TIME ZONE 'UTC')::date AS day, type, coalesce(reason, data->>'reason') AS reason,
           count(*)::bigint AS revocations
    FROM authlog.events
    WHERE type IN ('token.revoked', 'token.reuse_detected', 'session.revoked', 'provider.consent_revoked',
                   'account.deleted')
    GROUP BY 1, 2, 3;

GRANT USAGE ON SCHEMA dashboard TO authlog_reader, authlog_app;
GRANT SELECT ON ALL TABLES IN SCHEMA dashboard TO authlog_reader;
