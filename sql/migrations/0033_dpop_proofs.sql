-- DPoP (issue 39, RFC 9449 §11.1): a proof's jti is accepted once within its lifetime, across every `serve`
-- process of the database. Each accepted proof is kept as the SHA-256 of its key's thumbprint and its jti
-- until its iat leaves the accepted window (a minute by default), then purged: the rows are bounded by the
-- proofs accepted in one window, and a proof older than that fails on its iat before this table is asked.
-- Operational state, not an audit fact: the refusal of a replay is the event.
CREATE TABLE authlog.dpop_proofs (
    proof_hash  bytea       PRIMARY KEY CHECK (octet_length(proof_hash) = 32),
    expires_at  timestamptz NOT NULL
);
CREATE INDEX dpop_proofs_expires_at ON authlog.dpop_proofs (expires_at);

GRANT SELECT, INSERT, DELETE ON authlog.dpop_proofs TO authlog_app;
