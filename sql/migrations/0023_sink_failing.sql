-- A sink failing past the alert threshold is recorded once per episode (docs/operations.md, "Pushing events to
-- a SIEM"): `audit.sink_failing` when its failures in a row reach the threshold, `audit.sink_recovered` when it
-- acknowledges a batch again. The episode lives in the sink's row, so that a process that takes the lease over
-- (or restarts) neither records the start again nor forgets to record the end.
--
-- failing_since     the first failure of the current run (NULL: the last delivery succeeded);
-- failing_recorded  whether audit.sink_failing records this run. Until audit.sink_recovered is recorded, a
--                   delivery that succeeds keeps the run (and its failures) so the next delivery records it.
ALTER TABLE authlog.sink_cursors
    ADD COLUMN failing_since    timestamptz,
    ADD COLUMN failing_recorded boolean NOT NULL DEFAULT false;
