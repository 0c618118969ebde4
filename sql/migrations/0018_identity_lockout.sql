-- The identity lockout (issue 24, docs/configuration.md "rate_limits.lockout"): one row per identity that
-- a provider vouched for and that then failed a later check (signin.failed with data.subject_hash), kept
-- by the projection reducer from signin.failed, signin.succeeded, identity.locked and identity.unlocked
-- like every other projection, so that every `authlog serve` on the database sees one lock state and
-- `authlog rebuild` makes the same rows.
--   recent_failures  the newest counted failures, at most 100 (IdentityLockout.keptFailures), emptied by a
--                    signin.succeeded of the identity (consecutive failures count): counting those within the
--                    window is bounded work on one row found by its primary key;
--   level            the back-off level of the last lock (0: none since the last operator unlock);
--   locked_at, locked_until
--                    the last lock (kept once it ends: the next lock within the window backs off further);
--   unlocked_at      when identity.unlocked lifted it; NULL while a lock is recorded as in force.
CREATE TABLE authlog.identity_lockouts (
    provider         text          NOT NULL,
    subject_hash     text          NOT NULL,
    recent_failures  timestamptz[] NOT NULL DEFAULT '{}',
    level            integer       NOT NULL DEFAULT 0 CHECK (level >= 0),
    locked_at        timestamptz,
    locked_until     timestamptz,
    unlocked_at      timestamptz,
    PRIMARY KEY (provider, subject_hash),
    CHECK (cardinality(recent_failures) <= 100)
);

-- The locks in force, by when they run out: `serve`'s lock-expiry pass records identity.unlocked (cause
-- expired) for those past locked_until, a few rows found by this index however many identities there are.
CREATE INDEX identity_lockouts_in_force ON authlog.identity_lockouts (locked_until)
    WHERE locked_at IS NOT NULL AND unlocked_at IS NULL;

GRANT SELECT, INSERT, UPDATE, DELETE ON authlog.identity_lockouts TO authlog_app;
