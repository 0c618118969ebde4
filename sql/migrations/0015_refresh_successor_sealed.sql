-- The refresh-token reuse grace window (issue 23, docs/signin.md): a rotated token's row keeps the answer its
-- rotation gave (the successor refresh token, the access token and their expiries), sealed with AES-256-GCM
-- under a key derived with HKDF-SHA-256 from the rotated token itself, which the database never holds (only
-- its SHA-256). Set in the rotation's transaction, dropped when the family's next rotation seals a newer one or
-- the token is revoked; ignored by the service once the window has passed. Never derived from an event, so
-- `authlog rebuild` carries the live value over.
ALTER TABLE authlog.refresh_tokens ADD COLUMN successor_sealed bytea;
