-- Function authlog.create_log_partitions: its current definition (last changed by migrations/0011_partition_upkeep_lock.sql).
-- Several authlog processes on one database (issue 13) each run the monthly partition upkeep. Two callers of
-- authlog.create_log_partitions could both find a month's partition missing and both create it, and the
-- second failed with "relation already exists". Callers now take turns on a transaction-level advisory lock
-- of their own (not the log-month lock, which writers hold shared), so the second finds the partition made.
CREATE OR REPLACE FUNCTION authlog.create_log_partitions(first date, last date) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    month   date := date_trunc('month', first)::date;
    created integer := 0;
    suffix  text;
    tbl     text;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('authlog.create_log_partitions'));
    WHILE month <= last LOOP
        suffix := to_char(month, '"y"YYYY"m"MM');
        FOREACH tbl IN ARRAY ARRAY['event_records', 'log_leaves'] LOOP
            IF to_regclass(format('authlog.%I', tbl || '_' || suffix)) IS NULL THEN
                EXECUTE format(
                    'CREATE TABLE authlog.%I PARTITION OF authlog.%I FOR VALUES FROM (%L) TO (%L)',
                    tbl || '_' || suffix, tbl, month, (month + interval '1 month')::date);
                EXECUTE format(
                    'CREATE TRIGGER %I BEFORE TRUNCATE ON authlog.%I '
                    'FOR EACH STATEMENT EXECUTE FUNCTION authlog.reject_log_change()',
                    tbl || '_' || suffix || '_append_only_truncate', tbl || '_' || suffix);
                created := created + 1;
            END IF;
        END LOOP;
        month := (month + interval '1 month')::date;
    END LOOP;
    RETURN created;
END;
$$;
