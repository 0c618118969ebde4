-- View dashboard.signins_by_provider: its current definition (last changed by migrations/0003_create_dashboard_views.sql).
CREATE OR REPLACE VIEW dashboard.signins_by_provider AS
    SELECT provider,
           coalesce(sum(signins) FILTER (WHERE outcome = 'success'), 0)::bigint AS succeeded,
           coalesce(sum(signins) FILTER (WHERE outcome = 'failure'), 0)::bigint AS failed,
           min(day) AS first_day,
           max(day) AS last_day
    FROM authlog.signins_daily
    GROUP BY provider;
