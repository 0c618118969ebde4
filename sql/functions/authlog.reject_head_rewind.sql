-- Function authlog.reject_head_rewind: its current definition (last changed by migrations/0006_transparency_log.sql).
-- The head only grows: a smaller size, or another root at the same size, is refused.
CREATE OR REPLACE FUNCTION authlog.reject_head_rewind() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.size < OLD.size OR (NEW.size = OLD.size AND NEW.root <> OLD.root) THEN
        RAISE EXCEPTION 'authlog.log_head only grows (size % to %)', OLD.size, NEW.size
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
END;
$$;
