-- Function authlog.require_all_inserted: its current definition (last changed by migrations/0022_write_path.sql).
-- The writer's check that every event row of a statement went in (BatchWriter, EventRow.writerInserts): a row
-- that ON CONFLICT DO NOTHING skipped lost a race to a concurrent batch for its event id or stream version.
-- Raising aborts the transaction inside the writer's pipeline, so the COMMIT sent behind it never runs and the
-- batch is planned again against the newer versions.
CREATE OR REPLACE FUNCTION authlog.require_all_inserted(inserted bigint, expected bigint) RETURNS bigint
LANGUAGE plpgsql AS $$
BEGIN
    IF inserted < expected THEN
        RAISE EXCEPTION 'a concurrent batch stored % of these % events first', expected - inserted, expected
            USING ERRCODE = 'AL409';
    END IF;
    RETURN inserted;
END;
$$;
