-- Report roll-ups: hourly counts that `authlog report`, GET /v1/reports/{kind} and the dashboards read
-- instead of scanning the events (docs/architecture.md, "Reports").
--
-- The writers keep them in their own transaction, through triggers: a statement trigger on event_records
-- counts the sign-ins a statement inserted, a statement trigger on sessions counts the sessions started,
-- and a row trigger counts a session's end. The triggers only append to authlog.report_pending (no row
-- that two writers both update, so writers never wait on each other here); `serve` folds the pending
-- rows into the counts every second, in a transaction of its own. A report reads counts plus
-- pending, so it sees every committed event whenever it runs.
--
-- Roll-ups keep only counts by hour, metric, provider, client and one detail (a failure reason, a session's
-- end cause): nothing personal. Retention leaves them in place, so reports still count dropped months.

CREATE TABLE authlog.report_counts (
    hour       timestamptz NOT NULL CHECK (hour = date_trunc('hour', hour, 'UTC')),
    metric     text        NOT NULL CHECK (metric IN ('signin.succeeded', 'signin.failed', 'session.started',
                                                      'session.ended')),
    provider   text        NOT NULL,
    client_id  text        NOT NULL,
    detail     text        NOT NULL,
    n          bigint      NOT NULL CHECK (n >= 0),
    PRIMARY KEY (hour, metric, provider, client_id, detail)
);
CREATE INDEX report_counts_metric_hour ON authlog.report_counts (metric, hour);

-- The same counts by UTC day, so that a year is 365 rows per group rather than 8,760.
CREATE TABLE authlog.report_counts_daily (
    day        timestamptz NOT NULL CHECK (day = date_trunc('day', day, 'UTC')),
    metric     text        NOT NULL,
    provider   text        NOT NULL,
    client_id  text        NOT NULL,
    detail     text        NOT NULL,
    n          bigint      NOT NULL CHECK (n >= 0),
    PRIMARY KEY (day, metric, provider, client_id, detail)
);
CREATE INDEX report_counts_daily_metric_day ON authlog.report_counts_daily (metric, day);

-- Counts the writers appended and the sealer has not folded yet (no index: only appended and emptied).
CREATE TABLE authlog.report_pending (
    hour       timestamptz NOT NULL,
    metric     text        NOT NULL,
    provider   text        NOT NULL,
    client_id  text        NOT NULL,
    detail     text        NOT NULL,
    n          bigint      NOT NULL
);

-- Why a session ended, as reports name it: logout, expiry, reuse, deletion, or for the other revocations who
-- revoked it (user: the app revoked its token through RFC 7009; admin; provider_notice: Apple's notification
-- or Kakao's unlink; credential_state: the app reported Apple's credential state).
CREATE FUNCTION authlog.session_end_cause(state text, end_reason text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE
        WHEN state = 'logged_out' THEN 'logout'
        WHEN state = 'expired' THEN 'expiry'
        WHEN end_reason = 'reuse' THEN 'reuse'
        WHEN end_reason = 'account_deleted' THEN 'deletion'
        WHEN end_reason = 'token_revoked' THEN 'user'
        WHEN end_reason = 'admin' THEN 'admin'
        WHEN end_reason = 'provider_consent_revoked' THEN 'provider_notice'
        WHEN end_reason IN ('credential_revoked', 'credential_not_found') THEN 'credential_state'
        ELSE 'other'
    END
$$;

-- The detail a sign-in event is counted under: a failure's reason, nothing for a success.
CREATE FUNCTION authlog.signin_detail(type text, reason text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN type = 'signin.failed' THEN coalesce(reason, '') ELSE '' END
$$;

-- Every counted item with its time, one row each: the one definition of what the roll-ups count, used by
-- the backfill below and by reports for the partial hours at a range's edges.
CREATE VIEW authlog.report_items AS
    SELECT occurred_at AS at, type AS metric, coalesce(provider, '') AS provider,
           coalesce(client_id, '') AS client_id, authlog.signin_detail(type, reason) AS detail
    FROM authlog.event_records
    WHERE type IN ('signin.succeeded', 'signin.failed')
    UNION ALL
    SELECT started_at, 'session.started', provider, coalesce(client_id, ''), ''
    FROM authlog.sessions
    UNION ALL
    SELECT ended_at, 'session.ended', provider, coalesce(client_id, ''), authlog.session_end_cause(state, end_reason)
    FROM authlog.sessions
    WHERE state <> 'active';

CREATE INDEX sessions_started_at ON authlog.sessions (started_at);
CREATE INDEX sessions_ended_at ON authlog.sessions (ended_at) WHERE ended_at IS NOT NULL;

-- `authlog rebuild` replaces the sessions table and recounts their roll-ups itself: it sets
-- authlog.counting_off for its transaction, and these triggers then count nothing.
CREATE FUNCTION authlog.count_signins() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO authlog.report_pending (hour, metric, provider, client_id, detail, n)
    SELECT date_trunc('hour', occurred_at, 'UTC'), type, coalesce(provider, ''), coalesce(client_id, ''),
           authlog.signin_detail(type, reason), count(*)
    FROM inserted
    WHERE type IN ('signin.succeeded', 'signin.failed')
    GROUP BY 1, 2, 3, 4, 5;
    RETURN NULL;
END;
$$;

CREATE FUNCTION authlog.count_sessions_started() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('authlog.counting_off', true) = 'on' THEN
        RETURN NULL;
    END IF;
    INSERT INTO authlog.report_pending (hour, metric, provider, client_id, detail, n)
    SELECT date_trunc('hour', started_at, 'UTC'), 'session.started', provider, coalesce(client_id, ''), '', count(*)
    FROM inserted
    GROUP BY 1, 3, 4;
    RETURN NULL;
END;
$$;

CREATE FUNCTION authlog.count_session_ended() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('authlog.counting_off', true) = 'on' THEN
        RETURN NULL;
    END IF;
    INSERT INTO authlog.report_pending (hour, metric, provider, client_id, detail, n)
    VALUES (date_trunc('hour', NEW.ended_at, 'UTC'), 'session.ended', NEW.provider, coalesce(NEW.client_id, ''),
            authlog.session_end_cause(NEW.state, NEW.end_reason), 1);
    RETURN NULL;
END;
$$;

CREATE TRIGGER event_records_count_signins AFTER INSERT ON authlog.event_records
    REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION authlog.count_signins();
CREATE TRIGGER sessions_count_started AFTER INSERT ON authlog.sessions
    REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION authlog.count_sessions_started();
CREATE TRIGGER sessions_count_ended AFTER UPDATE OF state ON authlog.sessions
    FOR EACH ROW WHEN (OLD.state = 'active' AND NEW.state <> 'active')
    EXECUTE FUNCTION authlog.count_session_ended();

-- Folds the pending counts into report_counts and report_counts_daily, rows in key order (two folders never
-- deadlock). `serve` calls it every second; anybody may call it again, it only moves counts.
CREATE FUNCTION authlog.fold_report_counts() RETURNS bigint
LANGUAGE sql AS $$
    WITH taken AS (
        DELETE FROM authlog.report_pending RETURNING *
    ), hourly AS (
        INSERT INTO authlog.report_counts AS c (hour, metric, provider, client_id, detail, n)
        SELECT hour, metric, provider, client_id, detail, sum(n)
        FROM taken
        GROUP BY 1, 2, 3, 4, 5
        ORDER BY 1, 2, 3, 4, 5
        ON CONFLICT (hour, metric, provider, client_id, detail) DO UPDATE SET n = c.n + excluded.n
        RETURNING 1
    ), daily AS (
        INSERT INTO authlog.report_counts_daily AS c (day, metric, provider, client_id, detail, n)
        SELECT date_trunc('day', hour, 'UTC'), metric, provider, client_id, detail, sum(n)
        FROM taken
        GROUP BY 1, 2, 3, 4, 5
        ORDER BY 1, 2, 3, 4, 5
        ON CONFLICT (day, metric, provider, client_id, detail) DO UPDATE SET n = c.n + excluded.n
        RETURNING 1
    )
    SELECT (SELECT count(*) FROM hourly) + (SELECT count(*) FROM daily)
$$;

-- Counts everything again from the items: the backfill below, and `authlog rebuild` after it replaced the
-- sessions (with authlog.counting_off set, so the triggers counted nothing meanwhile).
CREATE FUNCTION authlog.recount_reports() RETURNS bigint
LANGUAGE sql AS $$
    DELETE FROM authlog.report_pending;
    DELETE FROM authlog.report_counts;
    DELETE FROM authlog.report_counts_daily;
    INSERT INTO authlog.report_counts (hour, metric, provider, client_id, detail, n)
    SELECT date_trunc('hour', at, 'UTC'), metric, provider, client_id, detail, count(*)
    FROM authlog.report_items
    GROUP BY 1, 2, 3, 4, 5;
    INSERT INTO authlog.report_counts_daily (day, metric, provider, client_id, detail, n)
    SELECT date_trunc('day', hour, 'UTC'), metric, provider, client_id, detail, sum(n)
    FROM authlog.report_counts
    GROUP BY 1, 2, 3, 4, 5;
    SELECT coalesce(sum(n), 0)::bigint FROM authlog.report_counts
$$;

SELECT authlog.recount_reports();

GRANT SELECT, INSERT, UPDATE, DELETE ON authlog.report_counts, authlog.report_counts_daily, authlog.report_pending
    TO authlog_app;
GRANT SELECT ON authlog.report_items TO authlog_app;
