-- Sign-in alerts in the reports (issue 38): `authlog report alerts`, GET /v1/reports/alerts and the view
-- dashboard.signin_alerts_hourly count the judgements of signin.flagged (one item per judgement of each
-- event) in the roll-ups under the metric 'signin.flagged', with the detail '<judgement>/<decision>'
-- (impossible_travel/recorded, new_country/denied, ...). The writers count them in the statement that inserts
-- the events, as they count sign-ins (PendingReportCounts); report_items gains them for the partial hours at a
-- range's edges and for authlog.recount_reports.

ALTER TABLE authlog.report_counts DROP CONSTRAINT report_counts_metric_check;
ALTER TABLE authlog.report_counts ADD CONSTRAINT report_counts_metric_check
    CHECK (metric IN ('signin.succeeded', 'signin.failed', 'session.started', 'session.ended', 'refused',
                      'signin.flagged'));

CREATE OR REPLACE VIEW authlog.report_items AS
    SELECT occurred_at AS at, type AS metric, coalesce(provider, '') AS provider,
           coalesce(client_id, '') AS client_id, authlog.signin_detail(type, reason) AS detail, 1::bigint AS n
    FROM authlog.event_records
    WHERE type IN ('signin.succeeded', 'signin.failed')
    UNION ALL
    SELECT started_at, 'session.started', provider, coalesce(client_id, ''), '', 1
    FROM authlog.sessions
    UNION ALL
    SELECT ended_at, 'session.ended', provider, coalesce(client_id, ''), authlog.session_end_cause(state, end_reason), 1
    FROM authlog.sessions
    WHERE state <> 'active'
    UNION ALL
    SELECT e.occurred_at, 'refused', coalesce(e.provider, ''), coalesce(e.client_id, ''), r.detail, r.n
    FROM authlog.event_records e
    CROSS JOIN LATERAL authlog.refusal_items(e.type, e.outcome, e.reason, e.data) AS r
    WHERE e.type IN ('ratelimit.exceeded', 'request.refused', 'audit.accessed')
    UNION ALL
    SELECT e.occurred_at, 'signin.flagged', coalesce(e.provider, ''), coalesce(e.client_id, ''),
           coalesce(j.value->>'kind', '') || '/' || coalesce(e.data->>'decision', ''), 1
    FROM authlog.event_records e
    CROSS JOIN LATERAL jsonb_array_elements(CASE jsonb_typeof(e.data->'judgements')
                                                WHEN 'array' THEN e.data->'judgements' ELSE '[]' END) AS j
    WHERE e.type = 'signin.flagged';

-- Sign-ins and refreshes judged unusual (signin.flagged) per UTC hour, one row per judgement (new_device,
-- new_country, new_region, impossible_travel, hosting_network) and decision (recorded, reauthenticated,
-- reauthentication_required, denied), from the roll-ups.
CREATE VIEW dashboard.signin_alerts_hourly AS
    SELECT hour,
           nullif(provider, '') AS provider,
           nullif(client_id, '') AS client_id,
           split_part(detail, '/', 1) AS judgement,
           split_part(detail, '/', 2) AS decision,
           sum(n)::bigint AS alerts
    FROM authlog.report_rollups
    WHERE metric = 'signin.flagged'
    GROUP BY hour, provider, client_id, detail;
GRANT SELECT ON dashboard.signin_alerts_hourly TO authlog_reader;
