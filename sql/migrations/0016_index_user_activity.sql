-- A user's own activity (GET /v1/me/activity) reads their events newest first, a page at a time after a
-- cursor (occurred_at, event_id): this index answers it with a backward range scan per monthly partition,
-- however long the log or the user's history is. Its leading column serves every lookup by user_id that
-- event_records_user_id served (the export's user filter), so that one goes and the writers maintain one
-- index per event for users, as before. Created on the partitioned table, it is created on every existing
-- month and on each month created later.
CREATE INDEX event_records_user_activity ON authlog.event_records (user_id, occurred_at, event_id)
    WHERE user_id IS NOT NULL;
DROP INDEX authlog.event_records_user_id;
