-- Function authlog.reject_event_change: its current definition (last changed by migrations/0001_create_events.sql).
CREATE OR REPLACE FUNCTION authlog.reject_event_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'authlog.events is append-only: % is not allowed', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END;
$$;
