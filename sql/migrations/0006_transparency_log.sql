-- The log as a transparency log: writers commit events in parallel without positions; one sealer at a time
-- gives committed events gapless positions, leaf hashes and the Merkle tree (RFC 9162); signed checkpoints
-- (C2SP tlog-checkpoint) pin the tree. docs/architecture.md ("The write path") and docs/events.md ("The
-- Merkle tree") describe it. The events of the old single-writer table (events_v1) are moved over by
-- authlog's migrator in this migration's transaction (LegacyLogImport), then the old table is dropped.

ALTER TABLE authlog.events RENAME TO events_v1;
DROP TABLE authlog.chain_head;
DROP VIEW dashboard.failed_signins_by_reason;
DROP VIEW dashboard.revocations_daily;

-- Every committed event, without a position: the writers insert here in parallel. The unique
-- (stream, stream_version) index is where concurrent writers' expected versions meet.
CREATE TABLE authlog.event_records (
    event_id        uuid        PRIMARY KEY,
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
    UNIQUE (stream, stream_version),
    CHECK (outcome = 'success' OR reason IS NOT NULL)
);
COMMENT ON TABLE authlog.event_records IS
    'authlog events as committed, append-only; digest = SHA-256(canonical bytes, docs/events.md)';
CREATE INDEX event_records_type_occurred_at ON authlog.event_records (type, occurred_at)
    INCLUDE (provider, outcome, user_id);
CREATE INDEX event_records_user_id ON authlog.event_records (user_id) WHERE user_id IS NOT NULL;

-- The queue of committed events waiting for a position. A row enters only with its writer's COMMIT, so the
-- sealer never sees an event that could still roll back. `queued` orders the queue (an event inserted after
-- another event of its stream committed always queues behind it); it is never read as a position.
-- A sign-in also carries what the sealer adds to authlog.signins_daily (the reducer's count, decided by the
-- writer): those counters are kept in log order by the sealer, not by the writers, whose batches would
-- otherwise all wait on the same few counter rows.
CREATE TABLE authlog.unsealed_events (
    queued           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id         uuid   NOT NULL,
    digest           bytea  NOT NULL CHECK (octet_length(digest) = 32),
    signin_day       date,
    signin_provider  text,
    signin_outcome   text   CHECK (signin_outcome IN ('success', 'failure')),
    CHECK ((signin_day IS NULL) = (signin_provider IS NULL) AND (signin_day IS NULL) = (signin_outcome IS NULL))
);

-- The sealed log: one row per position. leaf_hash = SHA-256(0x00 || position as 8 bytes big-endian || digest);
-- subtree_hashes holds the interior nodes (RFC 9162) completed by this leaf, level 1 first, 32 bytes each,
-- so any node of a complete subtree is one primary-key read.
CREATE TABLE authlog.log_leaves (
    position        bigint      PRIMARY KEY CHECK (position > 0),
    event_id        uuid        NOT NULL UNIQUE,
    leaf_hash       bytea       NOT NULL CHECK (octet_length(leaf_hash) = 32),
    subtree_hashes  bytea       NOT NULL CHECK (octet_length(subtree_hashes) % 32 = 0),
    sealed_at       timestamptz NOT NULL
);

-- The single row the sealer locks: the tree size, its root and its frontier (the hashes of the maximal
-- complete subtrees on the right edge, largest first).
CREATE TABLE authlog.log_head (
    singleton   boolean     PRIMARY KEY DEFAULT true CHECK (singleton),
    size        bigint      NOT NULL CHECK (size >= 0),
    root        bytea       NOT NULL CHECK (octet_length(root) = 32),
    frontier    bytea       NOT NULL CHECK (octet_length(frontier) % 32 = 0),
    updated_at  timestamptz NOT NULL
);
INSERT INTO authlog.log_head (singleton, size, root, frontier, updated_at)
VALUES (true, 0, sha256(''::bytea), ''::bytea, now());

-- Signed checkpoints (C2SP tlog-checkpoint notes), one per tree size.
CREATE TABLE authlog.checkpoints (
    tree_size  bigint      PRIMARY KEY CHECK (tree_size >= 0),
    root       bytea       NOT NULL CHECK (octet_length(root) = 32),
    key_name   text        NOT NULL,
    note       text        NOT NULL,
    signed_at  timestamptz NOT NULL
);

-- The sealed events in position order: what verify, reports, export and rebuild read.
CREATE VIEW authlog.events AS
    SELECT l.position, e.event_id, e.stream, e.stream_version, e.type, e.occurred_at, e.recorded_at, e.outcome,
           e.reason, e.provider, e.user_id, e.session_id, e.client_id, e.ip, e.user_agent, e.request_id, e.data,
           e.schema_version, e.digest, l.leaf_hash, l.sealed_at
    FROM authlog.log_leaves l
    JOIN authlog.event_records e ON e.event_id = l.event_id;

CREATE OR REPLACE FUNCTION authlog.reject_log_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is append-only: % is not allowed', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'insufficient_privilege';
END;
$$;

CREATE TRIGGER event_records_append_only_rows BEFORE UPDATE OR DELETE ON authlog.event_records
    FOR EACH ROW EXECUTE FUNCTION authlog.reject_log_change();
CREATE TRIGGER event_records_append_only_truncate BEFORE TRUNCATE ON authlog.event_records
    FOR EACH STATEMENT EXECUTE FUNCTION authlog.reject_log_change();
CREATE TRIGGER log_leaves_append_only_rows BEFORE UPDATE OR DELETE ON authlog.log_leaves
    FOR EACH ROW EXECUTE FUNCTION authlog.reject_log_change();
CREATE TRIGGER log_leaves_append_only_truncate BEFORE TRUNCATE ON authlog.log_leaves
    FOR EACH STATEMENT EXECUTE FUNCTION authlog.reject_log_change();
CREATE TRIGGER checkpoints_append_only_rows BEFORE UPDATE OR DELETE ON authlog.checkpoints
    FOR EACH ROW EXECUTE FUNCTION authlog.reject_log_change();
CREATE TRIGGER checkpoints_append_only_truncate BEFORE TRUNCATE ON authlog.checkpoints
    FOR EACH STATEMENT EXECUTE FUNCTION authlog.reject_log_change();
CREATE TRIGGER log_head_no_delete BEFORE DELETE OR TRUNCATE ON authlog.log_head
    FOR EACH STATEMENT EXECUTE FUNCTION authlog.reject_log_change();
-- The head only grows: a smaller size, or another root at the same size, is refused.
CREATE OR REPLACE FUNCTION authlog.reject_head_rewind() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.size < OLD.size OR (NEW.size = OLD.size AND NEW.root <> OLD.root) THEN
        RAISE EXCEPTION 'authlog.log_head only grows (size % to %)', OLD.size, NEW.size
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
END;
$$;
CREATE TRIGGER log_head_only_grows BEFORE UPDATE ON authlog.log_head
    FOR EACH ROW EXECUTE FUNCTION authlog.reject_head_rewind();

CREATE VIEW dashboard.failed_signins_by_reason AS
    SELECT (occurred_at AT TIME ZONE 'UTC')::date AS day, provider, reason, count(*)::bigint AS failures
    FROM authlog.events
    WHERE type = 'signin.failed'
    GROUP BY 1, 2, 3;

CREATE VIEW dashboard.revocations_daily AS
    SELECT (occurred_at AT TIME ZONE 'UTC')::date AS day, type, coalesce(reason, data->>'reason') AS reason,
           count(*)::bigint AS revocations
    FROM authlog.events
    WHERE type IN ('token.revoked', 'token.reuse_detected', 'session.revoked', 'provider.consent_revoked',
                   'account.deleted')
    GROUP BY 1, 2, 3;

GRANT SELECT, INSERT ON authlog.event_records, authlog.log_leaves, authlog.checkpoints TO authlog_app;
GRANT SELECT, INSERT, DELETE ON authlog.unsealed_events TO authlog_app;
GRANT SELECT, UPDATE ON authlog.log_head TO authlog_app;
GRANT SELECT ON authlog.events TO authlog_app;
GRANT SELECT ON dashboard.failed_signins_by_reason, dashboard.revocations_daily TO authlog_reader;
