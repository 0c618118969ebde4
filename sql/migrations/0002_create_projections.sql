-- Projection tables: derived from the events by the reducers, updated in the same transaction,
-- rebuilt by `authlog rebuild`. Never authoritative.

CREATE TABLE authlog.users (
    user_id         uuid        PRIMARY KEY,
    created_at      timestamptz NOT NULL,
    first_provider  text        NOT NULL,
    status          text        NOT NULL CHECK (status IN ('active', 'deleted')),
    deleted_at      timestamptz
);

CREATE TABLE authlog.identities (
    provider      text        NOT NULL,
    subject_hash  text        NOT NULL,
    user_id       uuid        NOT NULL,
    linked_at     timestamptz NOT NULL,
    PRIMARY KEY (provider, subject_hash)
);
CREATE INDEX identities_user_id ON authlog.identities (user_id);

CREATE TABLE authlog.sessions (
    session_id    uuid        PRIMARY KEY,
    user_id       uuid        NOT NULL,
    provider      text        NOT NULL,
    client_id     text,
    started_at    timestamptz NOT NULL,
    last_seen_at  timestamptz NOT NULL,
    state         text        NOT NULL CHECK (state IN ('active', 'logged_out', 'revoked', 'expired')),
    ended_at      timestamptz,
    end_reason    text
);
CREATE INDEX sessions_user_id ON authlog.sessions (user_id);

CREATE TABLE authlog.refresh_tokens (
    token_hash     bytea       PRIMARY KEY CHECK (octet_length(token_hash) = 32),
    token_id       uuid        NOT NULL UNIQUE,
    family_id      uuid        NOT NULL,
    parent_id      uuid,
    session_id     uuid        NOT NULL,
    user_id        uuid        NOT NULL,
    provider       text,
    kind           text        NOT NULL CHECK (kind IN ('remember_me', 'session')),
    state          text        NOT NULL CHECK (state IN ('active', 'rotated', 'revoked')),
    issued_at      timestamptz NOT NULL,
    expires_at     timestamptz NOT NULL,
    rotated_at     timestamptz,
    revoked_at     timestamptz,
    revoke_reason  text
);
CREATE INDEX refresh_tokens_family_id ON authlog.refresh_tokens (family_id);
CREATE INDEX refresh_tokens_session_id ON authlog.refresh_tokens (session_id);
CREATE INDEX refresh_tokens_user_id ON authlog.refresh_tokens (user_id);

CREATE TABLE authlog.signins_daily (
    day       date   NOT NULL,
    provider  text   NOT NULL,
    outcome   text   NOT NULL CHECK (outcome IN ('success', 'failure')),
    signins   bigint NOT NULL CHECK (signins > 0),
    PRIMARY KEY (day, provider, outcome)
);

GRANT SELECT, INSERT, UPDATE, DELETE ON
    authlog.users, authlog.identities, authlog.sessions, authlog.refresh_tokens, authlog.signins_daily
    TO authlog_app;
