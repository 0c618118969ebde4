-- View dashboard.signins_daily: its current definition (last changed by migrations/0003_create_dashboard_views.sql).
CREATE OR REPLACE VIEW dashboard.signins_daily AS
    SELECT day, provider, outcome, signins
    FROM authlog.signins_daily;
