-- Function authlog.recount_reports: its current definition (last changed by migrations/0019_refusal_counts.sql).
-- Counts everything again from the items, summing what each counts (n): `authlog rebuild` after it replaced
-- the sessions (copying the rebuilt rows counts nothing: only the writers' statements count, migration 28).
CREATE OR REPLACE FUNCTION authlog.recount_reports() RETURNS bigint
LANGUAGE sql AS $$
    DELETE FROM authlog.report_pending;
    DELETE FROM authlog.report_counts;
    DELETE FROM authlog.report_counts_daily;
    INSERT INTO authlog.report_counts (hour, metric, provider, client_id, detail, n)
    SELECT date_trunc('hour', at, 'UTC'), metric, provider, client_id, detail, sum(n)
    FROM authlog.report_items
    GROUP BY 1, 2, 3, 4, 5;
    INSERT INTO authlog.report_counts_daily (day, metric, provider, client_id, detail, n)
    SELECT date_trunc('day', hour, 'UTC'), metric, provider, client_id, detail, sum(n)
    FROM authlog.report_counts
    GROUP BY 1, 2, 3, 4, 5;
    SELECT coalesce(sum(n), 0)::bigint FROM authlog.report_counts
$$;
