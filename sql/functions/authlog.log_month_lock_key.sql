-- Function authlog.log_month_lock_key: its current definition (last changed by migrations/0008_monthly_partitions.sql).
CREATE OR REPLACE FUNCTION authlog.log_month_lock_key() RETURNS bigint
LANGUAGE sql IMMUTABLE AS $$ SELECT 7021120520400545636::bigint $$;
