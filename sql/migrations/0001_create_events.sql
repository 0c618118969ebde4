-- The append-only event log, its hash-chain head, the roles, and the trigger that keeps it append-only.

CREATE SCHEMA IF NOT EXISTS authlog;

CREATE TABLE authlog.events (
    position        bigint      PRIMARY KEY CHECK (position > 0),
    event_id        uuid        NOT NULL UNIQUE,
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
    prev_hash       bytea       NOT NULL CHECK (octet_length(prev_hash) = 32),
    hash            bytea       NOT NULL CHECK (octet_length(hash) = 32),
    UNIQUE (stream, stream_version),
    CHECK (outcome = 'success' OR reason IS NOT NULL)
);

COMMENT ON TABLE authlog.events IS
    'authlog events: append-only, gapless commit-ordered positions, hash = SHA-256(prev_hash || canonical bytes)';

-- Reports: sign-ins per provider and outcome over a time range answer from this index alone.
CREATE INDEX events_type_occurred_at ON authlog.events (type, occurred_at) INCLUDE (provider, outcome, user_id);
CREATE INDEX events_user_id ON authlog.events (user_id, position) WHERE user_id IS NOT NULL;

-- The single row that the sequencer locks: the last position and hash of the chain.
CREATE TABLE authlog.chain_head (
    singleton  boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    position   bigint  NOT NULL CHECK (position >= 0),
    hash       bytea   NOT NULL CHECK (octet_length(hash) = 32)
);
INSERT INTO authlog.chain_head (singleton, position, hash) VALUES (true, 0, decode(repeat('00', 32), 'hex'));

CREATE OR REPLACE FUNCTION authlog.reject_event_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'authlog.events is append-only: % is not allowed', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END;
$$;

CREATE TRIGGER events_append_only_rows
    BEFORE UPDATE OR DELETE ON authlog.events
    FOR EACH ROW EXECUTE FUNCTION authlog.reject_event_change();

CREATE TRIGGER events_append_only_truncate
    BEFORE TRUNCATE ON authlog.events
    FOR EACH STATEMENT EXECUTE FUNCTION authlog.reject_event_change();

CREATE TRIGGER chain_head_no_delete
    BEFORE DELETE OR TRUNCATE ON authlog.chain_head
    FOR EACH STATEMENT EXECUTE FUNCTION authlog.reject_event_change();

-- Roles are cluster-wide; several databases of one cluster may migrate at once. A role that exists already
-- (deploy/roles.sql creates both) is not created again, so the owner needs CREATEROLE only when one is missing.
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'authlog_app') THEN
        BEGIN
            CREATE ROLE authlog_app NOLOGIN;
        EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
        END;
    END IF;
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'authlog_reader') THEN
        BEGIN
            CREATE ROLE authlog_reader NOLOGIN;
        EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
        END;
    END IF;
END
$$;

GRANT USAGE ON SCHEMA authlog TO authlog_app;
GRANT SELECT, INSERT ON authlog.events TO authlog_app;
GRANT SELECT, UPDATE ON authlog.chain_head TO authlog_app;
GRANT SELECT ON authlog.schema_migrations TO authlog_app;
