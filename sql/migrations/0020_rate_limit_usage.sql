-- What each `serve` process admitted per rate-limit key, so that several processes on one database share one
-- budget per key (docs/configuration.md, "Several processes"). Each process adds what it admitted since its
-- last pass to its own row (a running total) and reads the other processes' rows changed since, charging
-- their new admissions to its own bucket. Counters, not records: unlogged (a crash of the database loses
-- them, and the buckets simply refill), updated in place, and forgotten after ten quiet minutes.
CREATE UNLOGGED TABLE authlog.rate_limit_usage (
    bucket      text        NOT NULL CHECK (bucket <> ''),
    key         text        NOT NULL,
    process     uuid        NOT NULL,
    admitted    bigint      NOT NULL CHECK (admitted >= 0),
    updated_at  timestamptz NOT NULL,
    PRIMARY KEY (bucket, key, process)
);
CREATE INDEX rate_limit_usage_updated ON authlog.rate_limit_usage (updated_at);

GRANT SELECT, INSERT, UPDATE, DELETE ON authlog.rate_limit_usage TO authlog_app;
