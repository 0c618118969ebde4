-- Function authlog.fold_report_counts: its current definition (last changed by migrations/0009_report_rollups.sql).
-- Folds the pending counts into report_counts and report_counts_daily, rows in key order (two folders never
-- deadlock). `serve` calls it every second; anybody may call it again, it only moves counts.
CREATE OR REPLACE FUNCTION authlog.fold_report_counts() RETURNS bigint
LANGUAGE sql AS $$
    WITH taken AS (
        DELETE FROM authlog.report_pending RETURNING *
    ), hourly AS (
        INSERT INTO authlog.report_counts AS c (hour, metric, provider, client_id, detail, n)
        SELECT hour, metric, provider, client_id, detail, sum(n)
        FROM taken
        GROUP BY 1, 2, 3, 4, 5
        ORDER BY 1, 2, 3, 4, 5
        ON CONFLICT (hour, metric, provider, client_id, detail) DO UPDATE SET n = c.n + excluded.n
        RETURNING 1
    ), daily AS (
        INSERT INTO authlog.report_counts_daily AS c (day, metric, provider, client_id, detail, n)
        SELECT date_trunc('day', hour, 'UTC'), metric, provider, client_id, detail, sum(n)
        FROM taken
        GROUP BY 1, 2, 3, 4, 5
        ORDER BY 1, 2, 3, 4, 5
        ON CONFLICT (day, metric, provider, client_id, detail) DO UPDATE SET n = c.n + excluded.n
        RETURNING 1
    )
    SELECT (SELECT count(*) FROM hourly) + (SELECT count(*) FROM daily)
$$;
