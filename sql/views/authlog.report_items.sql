-- View authlog.report_items: its current definition (last changed by migrations/0031_signin_alert_counts.sql).
-- Every counted item with its time, one row each, and what it counts (n): the one definition of what the
-- roll-ups count, used by authlog.recount_reports() and by reports for the partial hours at a range's edges.
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
