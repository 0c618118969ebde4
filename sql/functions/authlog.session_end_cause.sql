-- Function authlog.session_end_cause: its current definition (last changed by
-- migrations/0029_not_me_end_cause.sql).
-- Why a session ended, as reports name it: logout, expiry, reuse, deletion, or for the other revocations who
-- revoked it (user: the app revoked its token through RFC 7009, the user ended the session from their own
-- session list, or reported an entry of their activity as not theirs; admin; provider_notice: Apple's notification
-- or Kakao's unlink; credential_state: the app reported Apple's credential state).
CREATE OR REPLACE FUNCTION authlog.session_end_cause(state text, end_reason text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE
        WHEN state = 'logged_out' THEN 'logout'
        WHEN state = 'expired' THEN 'expiry'
        WHEN end_reason = 'reuse' THEN 'reuse'
        WHEN end_reason = 'account_deleted' THEN 'deletion'
        WHEN end_reason IN ('token_revoked', 'user_revoked', 'not_me') THEN 'user'
        WHEN end_reason = 'admin' THEN 'admin'
        WHEN end_reason = 'provider_consent_revoked' THEN 'provider_notice'
        WHEN end_reason IN ('credential_revoked', 'credential_not_found') THEN 'credential_state'
        ELSE 'other'
    END
$$;
