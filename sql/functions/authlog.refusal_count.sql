-- Function authlog.refusal_count: its current definition (last changed by migrations/0019_refusal_counts.sql).
-- How many requests one count in a refusal event's data stands for: a JSON number from 1 up to 10^15 (its
-- whole part), otherwise 1, so that an event always counts at least the one refusal it records and a
-- malformed value can never make a writer's insert fail.
CREATE OR REPLACE FUNCTION authlog.refusal_count(value jsonb) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE
        WHEN jsonb_typeof(value) IS DISTINCT FROM 'number' THEN 1
        WHEN value::numeric >= 1 AND value::numeric < 1e15 THEN trunc(value::numeric)::bigint
        ELSE 1
    END
$$;
