-- Function authlog.refusal_items: its current definition (last changed by migrations/0019_refusal_counts.sql).
-- The refused requests one event records, by detail (docs/operations.md, "Refused requests in the failures
-- report"): ratelimit.exceeded, request.refused and refused audit.accessed; no rows for any other event.
CREATE OR REPLACE FUNCTION authlog.refusal_items(type text, outcome text, reason text, data jsonb)
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
