-- View authlog.events: its current definition (last changed by migrations/0008_monthly_partitions.sql).
-- The sealed events in position order, as before, now with their month.
CREATE OR REPLACE VIEW authlog.events AS
    SELECT l.position, e.event_id, e.stream, e.stream_version, e.type, e.occurred_at, e.recorded_at, e.outcome,
           e.reason, e.provider, e.user_id, e.session_id, e.client_id, e.ip, e.user_agent, e.request_id, e.data,
           e.schema_version, e.digest, l.leaf_hash, l.sealed_at, l.log_month
    FROM authlog.log_leaves l
    JOIN authlog.event_records e ON e.event_id = l.event_id AND e.log_month = l.log_month;
