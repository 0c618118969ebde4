-- View dashboard.refused_requests_hourly: its current definition (last changed by migrations/0019_refusal_counts.sql).
-- Requests refused without a sign-in event each (rate limits, the HTTP edge, audit routes without a valid key)
-- per UTC hour, by what refused them (the failures report's reasons: rate_limited:<route>,
-- request_refused:<kind>, audit_refused:<reason>): every request the aggregated events account for, from the
-- roll-ups.
CREATE OR REPLACE VIEW dashboard.refused_requests_hourly AS
    SELECT hour, detail AS reason, sum(n)::bigint AS requests
    FROM authlog.report_rollups
    WHERE metric = 'refused'
    GROUP BY hour, detail;
