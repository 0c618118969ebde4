-- Function authlog.advance_log_month: its current definition (last changed by migrations/0008_monthly_partitions.sql).
-- Moves the epoch to the current month. The caller holds pg_advisory_xact_lock(authlog.log_month_lock_key())
-- and has sealed the queue in the same transaction; the new month's partitions exist already (created ahead).
CREATE OR REPLACE FUNCTION authlog.advance_log_month() RETURNS date
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    current date := date_trunc('month', now())::date;
    epoch   date;
BEGIN
    SELECT month INTO epoch FROM authlog.log_epoch FOR UPDATE;
    IF epoch >= current THEN
        RETURN epoch;
    END IF;
    IF EXISTS (SELECT FROM authlog.unsealed_events) THEN
        RAISE EXCEPTION 'the queue must be sealed before the log moves to %', current
            USING ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
    IF to_regclass(format('authlog.%I', 'event_records_' || to_char(current, '"y"YYYY"m"MM'))) IS NULL THEN
        RAISE EXCEPTION 'no partition for % yet', current USING ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
    UPDATE authlog.log_epoch SET month = current;
    RETURN current;
END;
$$;
