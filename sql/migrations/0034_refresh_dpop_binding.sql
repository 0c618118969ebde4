-- DPoP (issue 39, RFC 9449): a sign-in that carried a proof binds its refresh-token family to the key's RFC 7638
-- thumbprint (token.issued's dpop_jkt); each rotation carries it on (token.refreshed's dpop_jkt). A refresh of a
-- bound family must carry a proof signed by that key. NULL: the family is not bound (a Bearer family).
ALTER TABLE authlog.refresh_tokens ADD COLUMN dpop_jkt text CHECK (dpop_jkt ~ '^[A-Za-z0-9_-]{43}$');
