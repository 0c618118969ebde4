-- Scoped API keys for the operator and auditor routes (issue 11). A key is shown once when it is created;
-- only the SHA-256 of it is stored. A key is never deleted, only revoked, so that the events naming it as
-- their actor keep pointing at a row that says what it was.
CREATE TABLE authlog.api_keys (
    name        text        PRIMARY KEY CHECK (name ~ '^[A-Za-z0-9._-]{1,64}$'),
    scope       text        NOT NULL CHECK (scope IN ('ingest', 'audit', 'admin')),
    key_hash    bytea       NOT NULL UNIQUE CHECK (octet_length(key_hash) = 32),
    created_at  timestamptz NOT NULL,
    revoked_at  timestamptz
);

-- The server only authenticates callers; keys are created and revoked with the command line as the owner.
GRANT SELECT ON authlog.api_keys TO authlog_app;
