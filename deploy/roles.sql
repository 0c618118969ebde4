-- Database roles for a production authlog, run once by a database administrator before the first
-- `authlog migrate` (psql -v ON_ERROR_STOP=1 -d authlog -f deploy/roles.sql). Change the passwords, or use
-- certificate or peer authentication instead. Replace `authlog` in GRANT … ON DATABASE by your database.
--
-- Who owns what, and who can do what:
--
-- | role               | login | owns / may                                                            |
-- | ------------------ | ----- | --------------------------------------------------------------------- |
-- | authlog_owner      | no    | owns schemas authlog and dashboard and every table, view and trigger  |
-- |                    |       | in them; used only by `authlog migrate` (see below)                   |
-- | authlog_app        | no    | group: INSERT and SELECT on authlog.events, never UPDATE, DELETE or   |
-- |                    |       | TRUNCATE; read/write on the projection tables; no ownership           |
-- | authlog_reader     | no    | group: SELECT on the views in schema dashboard only                   |
-- | authlog_service    | yes   | `authlog serve` logs in as this member of authlog_app                 |
-- | authlog_dashboards | yes   | Grafana, Metabase, psql log in as this member of authlog_reader       |
--
-- The triggers on authlog.events refuse UPDATE, DELETE and TRUNCATE for every role, the owner included.
-- But `ALTER TABLE authlog.events DISABLE TRIGGER …` needs ownership of the table, so the table owner
-- (authlog_owner, and every role that is a member of it) and superusers can switch the triggers off and then
-- change history. authlog_app and authlog_reader cannot. Such an edit is what `authlog verify` catches: it
-- names the first position whose hash no longer matches (and, against an outside checkpoint, a truncation).
-- Keep authlog_owner NOLOGIN, grant it only to the administrators who run migrations, and run
-- `authlog verify` on a schedule.

-- The owner of the schema. NOLOGIN: nobody connects as it; an administrator who is a member becomes it for
-- a migration only. It needs no CREATEROLE because this script creates the group roles below; without
-- them, `authlog migrate` needs CREATEROLE to create them and says so.
CREATE ROLE authlog_owner NOLOGIN;
GRANT CREATE ON DATABASE authlog TO authlog_owner;

-- The group roles that the migrations grant rights to (the first migration creates them when missing).
CREATE ROLE authlog_app NOLOGIN;
CREATE ROLE authlog_reader NOLOGIN;

-- The service: may INSERT and SELECT events, never UPDATE, DELETE or TRUNCATE them, and owns nothing.
CREATE ROLE authlog_service LOGIN PASSWORD 'change-me' IN ROLE authlog_app;

-- Dashboards (Grafana, Metabase, psql): the views in schema `dashboard` only.
CREATE ROLE authlog_dashboards LOGIN PASSWORD 'change-me' IN ROLE authlog_reader;

-- Migrations: an administrator's login role that is a member of authlog_owner runs
--   authlog migrate --database-url "host=… dbname=authlog user=alice options='-c role=authlog_owner'"
-- so that every object is created by, and owned by, authlog_owner (never by authlog_service). For example:
--   GRANT authlog_owner TO alice;
