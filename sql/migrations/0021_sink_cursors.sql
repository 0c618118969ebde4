-- Push delivery (docs/operations.md, "Pushing events to a SIEM"): each configured sink's durable cursor, the
-- last position it acknowledged, and the lease of the process delivering to it. Several `serve` processes
-- share one row per sink: one holds the lease (renewed with each batch) and delivers in log order; when it
-- stops renewing, another takes over from the cursor. A batch is acknowledged only after the sink answered
-- 2xx, so a crash between the answer and the cursor's update delivers that batch again (at least once).
CREATE TABLE authlog.sink_cursors (
    sink                  text        PRIMARY KEY CHECK (sink ~ '^[a-z0-9][a-z0-9_-]{0,63}$'),
    delivered_through     bigint      NOT NULL DEFAULT 0 CHECK (delivered_through >= 0),
    lease_owner           uuid,
    lease_until           timestamptz,
    consecutive_failures  integer     NOT NULL DEFAULT 0 CHECK (consecutive_failures >= 0),
    last_error            text,
    updated_at            timestamptz NOT NULL DEFAULT clock_timestamp()
);

GRANT SELECT, INSERT, UPDATE ON authlog.sink_cursors TO authlog_app;
