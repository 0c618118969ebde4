-- Function authlog.signin_detail: its current definition (last changed by migrations/0009_report_rollups.sql).
-- The detail a sign-in event is counted under: a failure's reason, nothing for a success.
CREATE OR REPLACE FUNCTION authlog.signin_detail(type text, reason text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN type = 'signin.failed' THEN coalesce(reason, '') ELSE '' END
$$;
