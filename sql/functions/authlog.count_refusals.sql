-- Function authlog.count_refusals: its current definition (last changed by migrations/0019_refusal_counts.sql).
-- Counts the refused requests a statement inserted (events are never replaced, so `authlog rebuild`'s
-- authlog.counting_off does not concern it, as for the sign-ins).
CREATE OR REPLACE FUNCTION authlog.count_refusals() RETURNS trigger
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
