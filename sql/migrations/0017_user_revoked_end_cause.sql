-- A user ending one of their own sessions (DELETE /v1/me/sessions/{id}, POST /v1/me/sessions/revoke-others)
-- records session.revoked with reason user_revoked; reports count it as ended by the user, beside RFC 7009
-- token revocation, instead of "other". Earlier rows keep their counts: no session had this reason before.
CREATE OR REPLACE FUNCTION authlog.session_end_cause(state text, end_reason text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE
        WHEN state = 'logged_out' THEN 'logout'
        WHEN state = 'expired' THEN 'expiry'
        WHEN end_reason = 'reuse' THEN 'reuse'
        WHEN end_reason = 'account_deleted' THEN 'deletion'
        WHEN end_reason IN ('token_revoked', 'user_revoked') THEN 'user'
        WHEN end_reason = 'admin' THEN 'admin'
        WHEN end_reason = 'provider_consent_revoked' THEN 'provider_notice'
        WHEN end_reason IN ('credential_revoked', 'credential_not_found') THEN 'credential_state'
        ELSE 'other'
    END
$$;
