-- Operational state of the sign-in service that is not an audit fact and so not an event:
-- nonces (single use, short-lived) and provider credentials kept for revocation (encrypted).
-- Neither is rebuilt by `authlog rebuild`.

CREATE TABLE authlog.issued_nonces (
    nonce_hash  bytea       PRIMARY KEY CHECK (octet_length(nonce_hash) = 32),
    issued_at   timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL
);

-- A (provider, nonce) pair is accepted once, whether authlog issued the nonce or the device made it.
CREATE TABLE authlog.consumed_nonces (
    provider     text        NOT NULL,
    nonce_hash   bytea       NOT NULL CHECK (octet_length(nonce_hash) = 32),
    consumed_at  timestamptz NOT NULL,
    PRIMARY KEY (provider, nonce_hash)
);
CREATE INDEX consumed_nonces_consumed_at ON authlog.consumed_nonces (consumed_at);

-- Provider refresh tokens (Apple), AES-256-GCM under the service's data key, for revocation at
-- account deletion. Keyed by identity, so a sign-in that fails after storing it leaves nothing dangling.
CREATE TABLE authlog.provider_credentials (
    provider      text        NOT NULL,
    subject_hash  text        NOT NULL,
    sealed_token  bytea       NOT NULL,
    updated_at    timestamptz NOT NULL,
    PRIMARY KEY (provider, subject_hash)
);

-- Each user's personal-data key, wrapped (AES-256-GCM) under the service's data key. Personal data in
-- events is sealed with it; deleting the row erases that data while the hash chain still verifies.
CREATE TABLE authlog.user_keys (
    user_id      uuid        PRIMARY KEY,
    wrapped_key  bytea       NOT NULL,
    created_at   timestamptz NOT NULL
);

GRANT SELECT, INSERT, UPDATE, DELETE ON
    authlog.issued_nonces, authlog.consumed_nonces, authlog.provider_credentials, authlog.user_keys
    TO authlog_app;
