-- The account lifecycle (issue 9): session kinds and re-authentication, released identities, the keyed
-- email index, the provider-revocation queue and the provider-notification dedupe table.

-- Sessions know their kind (the lifetimes differ) and when the user last proved an identity in them.
ALTER TABLE authlog.sessions
    ADD COLUMN kind text NOT NULL DEFAULT 'remember_me' CHECK (kind IN ('remember_me', 'session')),
    ADD COLUMN authenticated_at timestamptz;
UPDATE authlog.sessions SET authenticated_at = started_at;
ALTER TABLE authlog.sessions ALTER COLUMN authenticated_at SET NOT NULL;
ALTER TABLE authlog.sessions ALTER COLUMN kind DROP DEFAULT;
-- The sweeper looks for active sessions past a limit.
CREATE INDEX sessions_active_last_seen ON authlog.sessions (last_seen_at) WHERE state = 'active';
CREATE INDEX sessions_active_started ON authlog.sessions (started_at) WHERE state = 'active';

-- A deleted user's identities stay as released rows: the identity's next registration hashes its subject
-- under the next generation (docs/events.md, "Subject hashes").
ALTER TABLE authlog.identities ADD COLUMN released_at timestamptz;

-- Verified emails as keyed hashes (HMAC-SHA-256, key outside the database), for the same-email policy.
-- Operational state, not an audit fact: kept out of events so that a deleted user's email hash is gone
-- with the row. `authoritative` says whether the provider is authoritative for the address (providers.md).
CREATE TABLE authlog.user_emails (
    email_hash     text        NOT NULL,
    user_id        uuid        NOT NULL,
    provider       text        NOT NULL,
    authoritative  boolean     NOT NULL,
    recorded_at    timestamptz NOT NULL,
    PRIMARY KEY (email_hash, user_id, provider)
);
CREATE INDEX user_emails_user_id ON authlog.user_emails (user_id);

-- Grants of deleted users still to be revoked at their providers, with the credential sealed under the
-- data key (AES-256-GCM). A row is claimed by moving next_attempt_at past a lease, so several processes
-- share the queue without doing one attempt twice.
CREATE TABLE authlog.provider_revocations (
    user_id          uuid        NOT NULL,
    provider         text        NOT NULL,
    subject_hash     text        NOT NULL,
    sealed_token     bytea       NOT NULL,
    state            text        NOT NULL CHECK (state IN ('pending', 'revoked', 'abandoned')),
    attempts         integer     NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    next_attempt_at  timestamptz NOT NULL,
    created_at       timestamptz NOT NULL,
    last_detail      text,
    PRIMARY KEY (user_id, provider, subject_hash)
);
CREATE INDEX provider_revocations_due ON authlog.provider_revocations (next_attempt_at) WHERE state = 'pending';

-- Provider notices already acted on (Apple's jti), so a replay changes nothing.
CREATE TABLE authlog.provider_notices (
    provider     text        NOT NULL,
    notice_id    text        NOT NULL,
    received_at  timestamptz NOT NULL,
    PRIMARY KEY (provider, notice_id)
);

GRANT SELECT, INSERT, UPDATE, DELETE ON
    authlog.user_emails, authlog.provider_revocations, authlog.provider_notices
    TO authlog_app;
