"""authlog's discovery metadata and JWKS, read and checked by libraries nobody at authlog wrote.

Reads a JSON request on standard input: {"base_url": where the server answers, "tokens": [access tokens]}.
Fetches /.well-known/openid-configuration and /.well-known/oauth-authorization-server, validates each member
authlog publishes with authlib's RFC 8414 and OpenID Connect Discovery metadata classes, fetches the JWKS from
jwks_uri (served at base_url: the issuer is authlog's public URL), and verifies every token with joserfc
against that key set: ES256, typ at+jwt, iss the metadata's issuer. Prints one JSON line: the issuer, the
JWKS's kids and each token's kid. Exit 1 with the reason when anything fails.
"""

import json
import sys
import time
import urllib.request

from authlib.oauth2.rfc8414 import AuthorizationServerMetadata
from authlib.oidc.discovery import OpenIDProviderMetadata
from joserfc import jwt
from joserfc.jwk import KeySet

# The members authlog publishes, each validated by authlib's own rule for it. authlog has no authorization
# or token endpoint, so RFC 8414's response_types_supported (required of a full authorization server) is absent.
OAUTH_MEMBERS = [
    "issuer",
    "jwks_uri",
    "revocation_endpoint",
    "revocation_endpoint_auth_methods_supported",
    "introspection_endpoint",
    "introspection_endpoint_auth_methods_supported",
]


def fetch(url):
    with urllib.request.urlopen(url, timeout=10) as answer:
        return json.loads(answer.read())


def main():
    request = json.load(sys.stdin)
    base = request["base_url"].rstrip("/")
    openid = fetch(base + "/.well-known/openid-configuration")
    oauth = fetch(base + "/.well-known/oauth-authorization-server")
    if openid != oauth:
        raise SystemExit("the two metadata documents differ")
    metadata = AuthorizationServerMetadata(oauth)
    for member in OAUTH_MEMBERS:
        if member not in oauth:
            raise SystemExit(f"the metadata has no {member}")
        getattr(metadata, f"validate_{member}")()
    OpenIDProviderMetadata(openid).validate_subject_types_supported()
    issuer = oauth["issuer"]
    if not oauth["jwks_uri"].startswith(issuer):
        raise SystemExit("jwks_uri is not under the issuer")
    keys = fetch(base + oauth["jwks_uri"][len(issuer.rstrip("/")):])
    key_set = KeySet.import_key_set(keys)
    algorithms = oauth["access_token_signing_alg_values_supported"]
    verified = []
    for token in request["tokens"]:
        decoded = jwt.decode(token, key_set, algorithms=algorithms)
        if decoded.header.get("typ") != "at+jwt":
            raise SystemExit(f"typ is {decoded.header.get('typ')}, not at+jwt")
        if decoded.claims.get("iss") != issuer:
            raise SystemExit(f"iss {decoded.claims.get('iss')} is not the issuer {issuer}")
        if decoded.claims.get("exp", 0) <= time.time():
            raise SystemExit("the token has expired")
        verified.append(decoded.header["kid"])
    print(json.dumps({"issuer": issuer, "jwks_kids": [key["kid"] for key in keys["keys"]], "token_kids": verified}))


if __name__ == "__main__":
    try:
        main()
    except SystemExit:
        raise
    except Exception as error:  # Every refusal of the libraries is a failed check, said in one line.
        raise SystemExit(f"{type(error).__name__}: {error}")
