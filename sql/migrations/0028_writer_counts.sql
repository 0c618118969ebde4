-- The report roll-ups' counts are written by the writer's own statements (issue 37): the event INSERT of a
-- batch counts its sign-ins and refused requests, the sessions' INSERT and UPDATE statements the sessions they
-- start and end, each in a data-modifying WITH that appends to authlog.report_pending (ProjectionWriter,
-- EventRow.writerInserts). The triggers did the same with transition tables: every inserted row was copied
-- into a tuplestore and each statement ran a PL/pgSQL function, a fixed cost that every batch paid.
-- Existing pending counts stay where they are; `serve` folds them as before.
DROP TRIGGER event_records_count_signins ON authlog.event_records;
DROP TRIGGER event_records_count_refusals ON authlog.event_records;
DROP TRIGGER sessions_count_started ON authlog.sessions;
DROP TRIGGER sessions_count_ended ON authlog.sessions;
DROP FUNCTION authlog.count_signins();
DROP FUNCTION authlog.count_refusals();
DROP FUNCTION authlog.count_sessions_started();
DROP FUNCTION authlog.count_session_ended();
