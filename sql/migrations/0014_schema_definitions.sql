-- The checksum of the current view and function files (sql/views/, sql/functions/) last applied, so that
-- `migrate` re-applies them only when they changed: applying them takes a brief exclusive lock on every
-- view, and needs the role that owns them.
CREATE TABLE authlog.schema_definitions (
    singleton   boolean     PRIMARY KEY DEFAULT true CHECK (singleton),
    checksum    text        NOT NULL,
    applied_at  timestamptz NOT NULL DEFAULT now()
);
