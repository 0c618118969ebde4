-- Sign-in alerts (issue 38, docs/signin.md "Sign-in alerts"): each sign-in is judged against the user's newest
-- successful sign-ins, read from the log itself (signin.succeeded's device_key, device_family, country, region
-- and sealed_place). This partial index answers that read with a backward range scan per monthly partition,
-- however many refreshes and other events the user has; only signin.succeeded rows are in it, so the writers
-- maintain it for sign-ins alone. Created on the partitioned table, it is created on every existing month and
-- on each month created later.
CREATE INDEX event_records_user_signins ON authlog.event_records (user_id, occurred_at)
    WHERE type = 'signin.succeeded' AND user_id IS NOT NULL;
