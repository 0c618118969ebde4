-- The write path (issue 26): session updates that only the primary key can serve, touches that can be HOT,
-- and the check that lets a batch send its inserts and its COMMIT in one round trip.
--
-- Touches, re-authentications and ends match `session_id = … AND state = 'active'`. The partial indexes on
-- `state = 'active'` let the planner choose them over the primary key whenever statistics are cold (a new or
-- restored database, lagging autovacuum), which walked every active session per update. And an index on
-- last_seen_at made every touch a non-HOT update that rewrote each index of the row.
--
-- The sweeper's index now says `ended_at IS NULL` (the same rows: every end sets ended_at), which no keyed
-- update's predicate implies, and indexes only started_at, which never changes; the idle check reads the open
-- sessions' last_seen_at from the table. Free space on each page lets a touch stay on its page (HOT).
DROP INDEX authlog.sessions_active_last_seen;
DROP INDEX authlog.sessions_active_started;
CREATE INDEX sessions_open_started ON authlog.sessions (started_at) WHERE ended_at IS NULL;
ALTER TABLE authlog.sessions SET (fillfactor = 80);
-- A refresh token is rotated or revoked once or twice after its insert; neither changes an indexed column.
ALTER TABLE authlog.refresh_tokens SET (fillfactor = 80);

-- Likewise an unlock matches `locked_at IS NOT NULL AND unlocked_at IS NULL`, the partial predicate of
-- identity_lockouts_in_force. The same rows are `locked_until IS NOT NULL AND unlocked_at IS NULL` (a lock sets
-- locked_at and locked_until together, an operator's unlock clears both): the expiry query's
-- `locked_until <= now` still finds that index, and no keyed update's predicate implies it.
DROP INDEX authlog.identity_lockouts_in_force;
CREATE INDEX identity_lockouts_pending_expiry ON authlog.identity_lockouts (locked_until)
    WHERE locked_until IS NOT NULL AND unlocked_at IS NULL;

-- The writer's check that every event row of a statement went in (BatchWriter): a row that ON CONFLICT DO
-- NOTHING skipped lost a race to a concurrent batch, and raising aborts the transaction inside the writer's
-- pipeline so that the COMMIT sent behind it never runs.
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
