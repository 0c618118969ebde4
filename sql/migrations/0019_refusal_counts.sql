-- Refused requests in the failures report (issue 24): the requests that authlog refuses without a sign-in
-- event each (rate limits, the HTTP edge, audit and admin routes without a valid key) are recorded as a few
-- aggregated events (docs/events.md, "Refusals without amplification"). The report roll-ups now count them
-- under the metric 'refused', by the number of requests each event accounts for (its data.count, or its
-- data.counts / data.reasons per kind; 1 when absent), not by the number of events, so that
-- `authlog report failures`, GET /v1/reports/failures and the evidence page add up to the requests refused.
--
-- The details, one report row each (docs/operations.md, "Refused requests in the failures report"):
--   rate_limited:<route>    ratelimit.exceeded, by its data.route (signin, refresh, nonce, revoke, introspect,
--                           log_read, audit; * for keys past the tracked maximum), summing data.count;
--   request_refused:<kind>  request.refused, each entry of data.counts (malformed, too_large, connection_cap, …);
--   audit_refused:<reason>  audit.accessed: each entry of data.reasons except anonymous_read (missing_api_key,
--                           unknown_api_key, revoked_api_key, insufficient_scope, …), or, for a refused read
--                           recorded alone (outcome failure, no reasons), its reason, data.count or 1.
-- Anonymous public reads (anonymous_read) are not refusals and are not counted here.
--
-- report_items gains the column n (what an item counts: 1 for a sign-in or a session, the requests of a
-- refusal), recount_reports sums it, and a statement trigger counts the refusals a writer's statement
-- inserted, like event_records_count_signins does for sign-ins.

ALTER TABLE authlog.report_counts DROP CONSTRAINT report_counts_metric_check;
ALTER TABLE authlog.report_counts ADD CONSTRAINT report_counts_metric_check
    CHECK (metric IN ('signin.succeeded', 'signin.failed', 'session.started', 'session.ended', 'refused'));

-- How many requests one count in a refusal event's data stands for: a JSON number from 1 up to 10^15 (its
-- whole part), otherwise 1, so that an event always counts at least the one refusal it records and a
-- malformed value can never make a writer's insert fail.
CREATE FUNCTION authlog.refusal_count(value jsonb) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE
        WHEN jsonb_typeof(value) IS DISTINCT FROM 'number' THEN 1
        WHEN value::numeric >= 1 AND value::numeric < 1e15 THEN trunc(value::numeric)::bigint
        ELSE 1
    END
$$;

-- The refused requests one event records, by detail (docs/operations.md, "Refused requests in the failures
-- report"): ratelimit.exceeded, request.refused and refused audit.accessed; no rows for any other event.
CREATE FUNCTION authlog.refusal_items(type text, outcome text, reason text, data jsonb)
RETURNS TABLE (detail text, n bigint)
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT 'rate_limited:' || coalesce(data->>'route', ''), authlog.refusal_count(data->'count')
    WHERE type = 'ratelimit.exceeded'
    UNION ALL
    SELECT 'request_refused:' || k.kind, authlog.refusal_count(k.value)
    FROM jsonb_each(CASE WHEN type = 'request.refused' AND jsonb_typeof(data->'counts') = 'object'
                         THEN data->'counts' ELSE '{}'::jsonb END) AS k(kind, value)
    UNION ALL
    SELECT 'request_refused:' || coalesce(reason, ''), 1
    WHERE type = 'request.refused'
      AND (jsonb_typeof(data->'counts') IS DISTINCT FROM 'object' OR data->'counts' = '{}'::jsonb)
    UNION ALL
    SELECT 'audit_refused:' || k.kind, authlog.refusal_count(k.value)
    FROM jsonb_each(CASE WHEN type = 'audit.accessed' AND jsonb_typeof(data->'reasons') = 'object'
                         THEN data->'reasons' ELSE '{}'::jsonb END) AS k(kind, value)
    WHERE k.kind <> 'anonymous_read'
    UNION ALL
    SELECT 'audit_refused:' || coalesce(reason, ''), authlog.refusal_count(data->'count')
    WHERE type = 'audit.accessed' AND outcome = 'failure' AND jsonb_typeof(data->'reasons') IS DISTINCT FROM 'object'
$$;

-- Every counted item with its time, one row each, and what it counts (n): the one definition of what the
-- roll-ups count, used by authlog.recount_reports() and by reports for the partial hours at a range's edges.
CREATE OR REPLACE VIEW authlog.report_items AS
    SELECT occurred_at AS at, type AS metric, coalesce(provider, '') AS provider,
           coalesce(client_id, '') AS client_id, authlog.signin_detail(type, reason) AS detail, 1::bigint AS n
    FROM authlog.event_records
    WHERE type IN ('signin.succeeded', 'signin.failed')
    UNION ALL
    SELECT started_at, 'session.started', provider, coalesce(client_id, ''), '', 1
    FROM authlog.sessions
    UNION ALL
    SELECT ended_at, 'session.ended', provider, coalesce(client_id, ''), authlog.session_end_cause(state, end_reason), 1
    FROM authlog.sessions
    WHERE state <> 'active'
    UNION ALL
    SELECT e.occurred_at, 'refused', coalesce(e.provider, ''), coalesce(e.client_id, ''), r.detail, r.n
    FROM authlog.event_records e
    CROSS JOIN LATERAL authlog.refusal_items(e.type, e.outcome, e.reason, e.data) AS r
    WHERE e.type IN ('ratelimit.exceeded', 'request.refused', 'audit.accessed');

-- Counts everything again from the items, summing what each counts (n): `authlog rebuild` after it replaced
-- the sessions (with authlog.counting_off set, so the triggers counted nothing meanwhile).
CREATE OR REPLACE FUNCTION authlog.recount_reports() RETURNS bigint
LANGUAGE sql AS $$
    DELETE FROM authlog.report_pending;
    DELETE FROM authlog.report_counts;
    DELETE FROM authlog.report_counts_daily;
    INSERT INTO authlog.report_counts (hour, metric, provider, client_id, detail, n)
    SELECT date_trunc('hour', at, 'UTC'), metric, provider, client_id, detail, sum(n)
    FROM authlog.report_items
    GROUP BY 1, 2, 3, 4, 5;
    INSERT INTO authlog.report_counts_daily (day, metric, provider, client_id, detail, n)
    SELECT date_trunc('day', hour, 'UTC'), metric, provider, client_id, detail, sum(n)
    FROM authlog.report_counts
    GROUP BY 1, 2, 3, 4, 5;
    SELECT coalesce(sum(n), 0)::bigint FROM authlog.report_counts
$$;

-- Counts the refused requests a statement inserted (events are never replaced, so `authlog rebuild`'s
-- authlog.counting_off does not concern it, as for the sign-ins).
CREATE FUNCTION authlog.count_refusals() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    -- Most statements insert no refusal: a plain look at the rows costs them less than the counting query.
    IF NOT EXISTS (SELECT 1 FROM inserted WHERE type IN ('ratelimit.exceeded', 'request.refused', 'audit.accessed'))
    THEN
        RETURN NULL;
    END IF;
    INSERT INTO authlog.report_pending (hour, metric, provider, client_id, detail, n)
    SELECT date_trunc('hour', i.occurred_at, 'UTC'), 'refused', coalesce(i.provider, ''), coalesce(i.client_id, ''),
           r.detail, sum(r.n)
    FROM inserted i
    CROSS JOIN LATERAL authlog.refusal_items(i.type, i.outcome, i.reason, i.data) AS r
    WHERE i.type IN ('ratelimit.exceeded', 'request.refused', 'audit.accessed')
    GROUP BY 1, 3, 4, 5;
    RETURN NULL;
END;
$$;

CREATE TRIGGER event_records_count_refusals AFTER INSERT ON authlog.event_records
    REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION authlog.count_refusals();

-- Requests refused without a sign-in event each (rate limits, the HTTP edge, audit routes without a valid key)
-- per UTC hour, by what refused them (the failures report's reasons: rate_limited:<route>,
-- request_refused:<kind>, audit_refused:<reason>): every request the aggregated events account for, from the
-- roll-ups.
CREATE VIEW dashboard.refused_requests_hourly AS
    SELECT hour, detail AS reason, sum(n)::bigint AS requests
    FROM authlog.report_rollups
    WHERE metric = 'refused'
    GROUP BY hour, detail;
GRANT SELECT ON dashboard.refused_requests_hourly TO authlog_reader;

-- The refusals already in the log (the months retention kept): pending, folded by the next pass.
INSERT INTO authlog.report_pending (hour, metric, provider, client_id, detail, n)
SELECT date_trunc('hour', at, 'UTC'), metric, provider, client_id, detail, sum(n)
FROM authlog.report_items
WHERE metric = 'refused'
GROUP BY 1, 2, 3, 4, 5;
