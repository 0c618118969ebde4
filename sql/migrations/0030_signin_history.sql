-- Sign-in alerts (issue 38, docs/signin.md "Sign-in alerts"): each sign-in is judged against the user's newest
-- successful sign-ins, read from the log itself (signin.succeeded's device_key, device_family, country, region
-- and sealed_place), and each refresh against its session's sign-in and what its refreshes were flagged for
-- (signin.flagged with the session). This partial index answers both with a backward range scan per monthly
-- partition, however many refreshes and other events the user has; only those two types are in it, so the
-- writers maintain it for sign-ins and alerts alone. Created on the partitioned table, it is created on every
-- existing month and on each month created later.
CREATE INDEX event_records_user_signins ON authlog.event_records (user_id, occurred_at)
    WHERE type IN ('signin.succeeded', 'signin.flagged') AND user_id IS NOT NULL;
