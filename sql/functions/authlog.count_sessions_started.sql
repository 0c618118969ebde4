-- Function authlog.count_sessions_started: its current definition (last changed by migrations/0009_report_rollups.sql).
CREATE OR REPLACE FUNCTION authlog.count_sessions_started() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('authlog.counting_off', true) = 'on' THEN
        RETURN NULL;
    END IF;
    INSERT INTO authlog.report_pending (hour, metric, provider, client_id, detail, n)
    SELECT date_trunc('hour', started_at, 'UTC'), 'session.started', provider, coalesce(client_id, ''), '', count(*)
    FROM inserted
    GROUP BY 1, 3, 4;
    RETURN NULL;
END;
$$;
