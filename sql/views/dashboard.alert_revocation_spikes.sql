-- View dashboard.alert_revocation_spikes: its current definition (last changed by migrations/0010_dashboard_views.sql).
-- Alert: the UTC hours of the last 24 (the current one included) whose revocations (as revocations_by_source
-- counts them, all providers) are at least 20 and more than 3 times the trailing average: the revocations
-- of the 168 hours before that hour, divided by 168.
CREATE OR REPLACE VIEW dashboard.alert_revocation_spikes AS
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
