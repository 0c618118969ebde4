-- Witnesses' cosignatures of the log's checkpoints (C2SP tlog-witness, tlog-cosignature cosignature/v1): each
-- line a witness answered add-checkpoint with, kept once serve has verified it with the witness's key. One
-- line per (tree size, witness); /v1/log/checkpoint appends them to the checkpoint's note. Append-only, like
-- the checkpoints they cosign. docs/operations.md ("Running a witness") describes the witnesses.
CREATE TABLE authlog.checkpoint_cosignatures (
    tree_size    bigint      NOT NULL REFERENCES authlog.checkpoints (tree_size),
    witness      text        NOT NULL CHECK (witness <> ''),
    line         text        NOT NULL CHECK (line LIKE '— % %' AND position(E'\n' IN line) = 0),
    cosigned_at  timestamptz NOT NULL,
    received_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tree_size, witness)
);

CREATE TRIGGER checkpoint_cosignatures_append_only_rows BEFORE UPDATE OR DELETE ON authlog.checkpoint_cosignatures
    FOR EACH ROW EXECUTE FUNCTION authlog.reject_log_change();
CREATE TRIGGER checkpoint_cosignatures_append_only_truncate BEFORE TRUNCATE ON authlog.checkpoint_cosignatures
    FOR EACH STATEMENT EXECUTE FUNCTION authlog.reject_log_change();

GRANT SELECT, INSERT ON authlog.checkpoint_cosignatures TO authlog_app;
