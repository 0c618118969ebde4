-- Function authlog.reject_log_change: its current definition (last changed by migrations/0006_transparency_log.sql).
CREATE OR REPLACE FUNCTION authlog.reject_log_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is append-only: % is not allowed', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'insufficient_privilege';
END;
$$;
