-- View authlog.report_items: its current definition (last changed by migrations/0009_report_rollups.sql).
-- Every counted item with its time, one row each: the one definition of what the roll-ups count, used by
-- the backfill below and by reports for the partial hours at a range's edges.
CREATE OR REPLACE VIEW authlog.report_items AS
    SELECT occurred_at AS at, type AS metric, coalesce(provider, '') AS provider,
           coalesce(client_id, '') AS client_id, authlog.signin_detail(type, reason) AS detail
    FROM authlog.event_records
    WHERE type IN ('signin.succeeded', 'signin.failed')
    UNION ALL
    SELECT started_at, 'session.started', provider, coalesce(client_id, ''), ''
    FROM authlog.sessions
    UNION ALL
    SELECT ended_at, 'session.ended', provider, coalesce(client_id, ''), authlog.session_end_cause(state, end_reason)
    FROM authlog.sessions
    WHERE state <> 'active';
