-- Database roles for a production authlog, run once by a database administrator (psql -f deploy/roles.sql).
-- `authlog migrate` creates the group roles authlog_app and authlog_reader (NOLOGIN) and grants them their
-- rights; this script adds the login roles that use them. Change the passwords, or use certificate or
-- peer authentication instead.

-- The service: may INSERT and SELECT events, never UPDATE, DELETE or TRUNCATE them.
CREATE ROLE authlog_service LOGIN PASSWORD 'change-me' IN ROLE authlog_app;

-- Dashboards (Grafana, Metabase, psql): the views in schema `dashboard` only.
CREATE ROLE authlog_dashboards LOGIN PASSWORD 'change-me' IN ROLE authlog_reader;

-- Migrations run as the schema owner (the role that ran the first `authlog migrate`), not as authlog_service.
