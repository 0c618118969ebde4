-- A user who reports an entry of their activity as not theirs (POST /v1/me/activity/{event_id}/not-me) ends
-- every session of theirs with session.revoked, reason not_me; reports count those as ended by the user,
-- beside user_revoked and RFC 7009 token revocation, instead of "other". Earlier rows keep their counts: no
-- session had this reason before.
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
