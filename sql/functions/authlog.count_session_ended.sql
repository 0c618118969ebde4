-- Function authlog.count_session_ended: its current definition (last changed by migrations/0009_report_rollups.sql).
CREATE OR REPLACE FUNCTION authlog.count_session_ended() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('authlog.counting_off', true) = 'on' THEN
        RETURN NULL;
    END IF;
    INSERT INTO authlog.report_pending (hour, metric, provider, client_id, detail, n)
    VALUES (date_trunc('hour', NEW.ended_at, 'UTC'), 'session.ended', NEW.provider, coalesce(NEW.client_id, ''),
            authlog.session_end_cause(NEW.state, NEW.end_reason), 1);
    RETURN NULL;
END;
$$;
