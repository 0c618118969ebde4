-- Function authlog.count_signins: its current definition (last changed by migrations/0009_report_rollups.sql).
-- `authlog rebuild` replaces the sessions table and recounts their roll-ups itself: it sets
-- authlog.counting_off for its transaction, and these triggers then count nothing.
CREATE OR REPLACE FUNCTION authlog.count_signins() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO authlog.report_pending (hour, metric, provider, client_id, detail, n)
    SELECT date_trunc('hour', occurred_at, 'UTC'), type, coalesce(provider, ''), coalesce(client_id, ''),
           authlog.signin_detail(type, reason), count(*)
    FROM inserted
    WHERE type IN ('signin.succeeded', 'signin.failed')
    GROUP BY 1, 2, 3, 4, 5;
    RETURN NULL;
END;
$$;
