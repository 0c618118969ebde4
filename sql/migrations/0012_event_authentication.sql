-- Events authenticated at the source (issue 21): every writer that holds the event key (log.event_key, kept
-- outside the database) stores HMAC-SHA-256(key, digest) with each event and its queue row; the sealer
-- refuses queue rows whose MAC is missing or wrong, so a database owner without the key cannot have a forged
-- event sealed. Events written before the key are NULL: verify names them unauthenticated, not broken.
ALTER TABLE authlog.event_records ADD COLUMN mac bytea CHECK (mac IS NULL OR octet_length(mac) = 32);
ALTER TABLE authlog.unsealed_events ADD COLUMN mac bytea CHECK (mac IS NULL OR octet_length(mac) = 32);

-- The id of the event key the log's events are authenticated with (the first 16 bytes of
-- HMAC-SHA-256(key, 'authlog event key id')), set by the first sealer that has a key. Once set, a writer
-- without that key is refused before it writes anything.
ALTER TABLE authlog.log_head ADD COLUMN event_key_id bytea CHECK (event_key_id IS NULL OR octet_length(event_key_id) = 16);

-- Queue rows the sealer refused (a wrong or missing MAC, or an event id that has a leaf already: a replayed
-- row), kept as evidence until an audit.events_refused event records them.
CREATE TABLE authlog.refused_events (
    queued      bigint      PRIMARY KEY,
    event_id    uuid        NOT NULL,
    digest      bytea       NOT NULL,
    mac         bytea,
    reason      text        NOT NULL CHECK (reason IN ('mac_missing', 'mac_mismatch', 'duplicate')),
    refused_at  timestamptz NOT NULL
);
GRANT SELECT, INSERT, DELETE ON authlog.refused_events TO authlog_app;
