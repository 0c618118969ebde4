-- The log by month (issue 11): authlog.event_records and authlog.log_leaves are partitioned by `log_month`, the
-- month their events were written in, so that retention drops whole months (DROP TABLE, no DELETE that scans)
-- and keeps the tree verifiable from an anchor. docs/architecture.md ("Months and retention") describes it.
--
-- The month an event belongs to is `authlog.log_epoch`, not its own clock: writers stamp the epoch while they
-- hold the shared advisory lock authlog.log_month_lock_key(); moving the epoch to a new month takes that lock
-- exclusively (so no writer of the old month is still open), seals every queued event under it, and only then
-- moves. Every month's events therefore hold one contiguous range of positions, and dropping the oldest
-- months drops exactly positions 1…S.

CREATE TABLE authlog.log_epoch (
    singleton  boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    month      date    NOT NULL CHECK (extract(day FROM month) = 1)
);

CREATE FUNCTION authlog.log_month_lock_key() RETURNS bigint
LANGUAGE sql IMMUTABLE AS $$ SELECT 7021120520400545636::bigint $$;

ALTER TABLE authlog.event_records RENAME TO event_records_unpartitioned;
ALTER TABLE authlog.log_leaves RENAME TO log_leaves_unpartitioned;
ALTER TABLE authlog.event_records_unpartitioned RENAME CONSTRAINT event_records_pkey TO event_records_unpartitioned_pkey;
ALTER INDEX authlog.event_records_stream_stream_version_key RENAME TO event_records_unpartitioned_stream_version_key;
ALTER INDEX authlog.event_records_type_occurred_at RENAME TO event_records_unpartitioned_type_occurred_at;
ALTER INDEX authlog.event_records_user_id RENAME TO event_records_unpartitioned_user_id;
ALTER TABLE authlog.log_leaves_unpartitioned RENAME CONSTRAINT log_leaves_pkey TO log_leaves_unpartitioned_pkey;
ALTER INDEX authlog.log_leaves_event_id_key RENAME TO log_leaves_unpartitioned_event_id_key;

-- Unique keys of a partitioned table include its partition key. Across months, event ids and stream versions
-- stay unique because a writer's lookup sees every committed month (writers of two months never overlap in
-- time: see above), and within a month these indexes catch concurrent writers.
CREATE TABLE authlog.event_records (
    event_id        uuid        NOT NULL,
    stream          text        NOT NULL CHECK (stream <> ''),
    stream_version  integer     NOT NULL CHECK (stream_version > 0),
    type            text        NOT NULL,
    occurred_at     timestamptz NOT NULL,
    recorded_at     timestamptz NOT NULL,
    outcome         text        NOT NULL CHECK (outcome IN ('success', 'failure')),
    reason          text,
    provider        text,
    user_id         uuid,
    session_id      uuid,
    client_id       text,
    ip              inet,
    user_agent      text        CHECK (octet_length(user_agent) <= 512),
    request_id      text,
    data            jsonb       NOT NULL CHECK (jsonb_typeof(data) = 'object'),
    schema_version  smallint    NOT NULL,
    digest          bytea       NOT NULL CHECK (octet_length(digest) = 32),
    log_month       date        NOT NULL,
    PRIMARY KEY (event_id, log_month),
    UNIQUE (stream, stream_version, log_month),
    CHECK (outcome = 'success' OR reason IS NOT NULL)
) PARTITION BY RANGE (log_month);
COMMENT ON TABLE authlog.event_records IS
    'authlog events as committed, append-only, one partition per month; digest = SHA-256(canonical bytes)';
CREATE INDEX event_records_type_occurred_at ON authlog.event_records (type, occurred_at)
    INCLUDE (provider, outcome, user_id);
CREATE INDEX event_records_user_id ON authlog.event_records (user_id) WHERE user_id IS NOT NULL;

CREATE TABLE authlog.log_leaves (
    position        bigint      NOT NULL CHECK (position > 0),
    event_id        uuid        NOT NULL,
    leaf_hash       bytea       NOT NULL CHECK (octet_length(leaf_hash) = 32),
    subtree_hashes  bytea       NOT NULL CHECK (octet_length(subtree_hashes) % 32 = 0),
    sealed_at       timestamptz NOT NULL,
    log_month       date        NOT NULL,
    PRIMARY KEY (position, log_month),
    UNIQUE (event_id, log_month)
) PARTITION BY RANGE (log_month);

-- What retention dropped, one row per application: the last dropped position S and the frontier of the tree
-- of S leaves (the hashes of its maximal complete subtrees), from which verify and proofs continue.
-- Each row also says what audit.retention_applied records, so that an event lost after the drop (the
-- database went away in between) is recorded by the next `authlog retention apply`.
CREATE TABLE authlog.log_retention (
    through_month          date        PRIMARY KEY,
    months                 text[]      NOT NULL,
    keep_months            integer     NOT NULL CHECK (keep_months >= 12),
    last_dropped_position  bigint      NOT NULL CHECK (last_dropped_position >= 0),
    dropped_events         bigint      NOT NULL CHECK (dropped_events >= 0),
    frontier               bytea       NOT NULL CHECK (octet_length(frontier) % 32 = 0),
    covering_checkpoint    bigint      NOT NULL CHECK (covering_checkpoint >= last_dropped_position),
    export_hashes          text[]      NOT NULL,
    applied_at             timestamptz NOT NULL,
    applied_by             text        NOT NULL
);

-- Creates the missing monthly partitions of both tables for `first` … `last` (first days of months), each
-- guarded against TRUNCATE like its parent. Owned by the migrating role, so that the server can call it.
CREATE FUNCTION authlog.create_log_partitions(first date, last date) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    month   date := date_trunc('month', first)::date;
    created integer := 0;
    suffix  text;
    tbl     text;
BEGIN
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

-- Moves the epoch to the current month. The caller holds pg_advisory_xact_lock(authlog.log_month_lock_key())
-- and has sealed the queue in the same transaction; the new month's partitions exist already (created ahead).
CREATE FUNCTION authlog.advance_log_month() RETURNS date
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

-- The months of the events already stored: a sealed event takes the latest sealing month up to its position
-- (so months follow positions), a queued or stranded one the epoch.
INSERT INTO authlog.log_epoch (singleton, month)
SELECT true, greatest(date_trunc('month', now()), coalesce(max(date_trunc('month', sealed_at)), date_trunc('month', now())))::date
FROM authlog.log_leaves_unpartitioned;

SELECT authlog.create_log_partitions(
    coalesce((SELECT min(sealed_at)::date FROM authlog.log_leaves_unpartitioned), (SELECT month FROM authlog.log_epoch)),
    ((SELECT month FROM authlog.log_epoch) + interval '2 months')::date);

CREATE TEMPORARY TABLE sealed_months ON COMMIT DROP AS
SELECT position, event_id,
       date_trunc('month', max(sealed_at) OVER (ORDER BY position))::date AS log_month
FROM authlog.log_leaves_unpartitioned;

INSERT INTO authlog.event_records
SELECT r.*, coalesce(m.log_month, (SELECT month FROM authlog.log_epoch))
FROM authlog.event_records_unpartitioned r LEFT JOIN sealed_months m ON m.event_id = r.event_id;

INSERT INTO authlog.log_leaves
SELECT l.*, m.log_month
FROM authlog.log_leaves_unpartitioned l JOIN sealed_months m ON m.position = l.position;

-- The sealed events in position order, as before, now with their month.
CREATE OR REPLACE VIEW authlog.events AS
    SELECT l.position, e.event_id, e.stream, e.stream_version, e.type, e.occurred_at, e.recorded_at, e.outcome,
           e.reason, e.provider, e.user_id, e.session_id, e.client_id, e.ip, e.user_agent, e.request_id, e.data,
           e.schema_version, e.digest, l.leaf_hash, l.sealed_at, l.log_month
    FROM authlog.log_leaves l
    JOIN authlog.event_records e ON e.event_id = l.event_id AND e.log_month = l.log_month;

DROP TABLE authlog.event_records_unpartitioned;
DROP TABLE authlog.log_leaves_unpartitioned;

CREATE TRIGGER event_records_append_only_rows BEFORE UPDATE OR DELETE ON authlog.event_records
    FOR EACH ROW EXECUTE FUNCTION authlog.reject_log_change();
CREATE TRIGGER event_records_append_only_truncate BEFORE TRUNCATE ON authlog.event_records
    FOR EACH STATEMENT EXECUTE FUNCTION authlog.reject_log_change();
CREATE TRIGGER log_leaves_append_only_rows BEFORE UPDATE OR DELETE ON authlog.log_leaves
    FOR EACH ROW EXECUTE FUNCTION authlog.reject_log_change();
CREATE TRIGGER log_leaves_append_only_truncate BEFORE TRUNCATE ON authlog.log_leaves
    FOR EACH STATEMENT EXECUTE FUNCTION authlog.reject_log_change();
CREATE TRIGGER log_retention_append_only_rows BEFORE UPDATE OR DELETE ON authlog.log_retention
    FOR EACH ROW EXECUTE FUNCTION authlog.reject_log_change();
CREATE TRIGGER log_retention_append_only_truncate BEFORE TRUNCATE ON authlog.log_retention
    FOR EACH STATEMENT EXECUTE FUNCTION authlog.reject_log_change();
CREATE TRIGGER log_epoch_no_delete BEFORE DELETE OR TRUNCATE ON authlog.log_epoch
    FOR EACH STATEMENT EXECUTE FUNCTION authlog.reject_log_change();

GRANT SELECT, INSERT ON authlog.event_records, authlog.log_leaves TO authlog_app;
GRANT SELECT ON authlog.log_epoch, authlog.log_retention TO authlog_app;
REVOKE EXECUTE ON FUNCTION authlog.create_log_partitions(date, date), authlog.advance_log_month() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION authlog.create_log_partitions(date, date), authlog.advance_log_month() TO authlog_app;
GRANT SELECT ON authlog.log_retention TO authlog_reader;
