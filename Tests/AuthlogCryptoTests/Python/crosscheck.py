"""Independent JOSE implementation for authlog's cross-check tests (joserfc on Python's cryptography).

  crosscheck.py sign ALG      -> prints {"jwk": <public JWK>, "token": <JWS signed by joserfc>}
  crosscheck.py verify ALG    -> reads {"jwk": ..., "token": ...} on stdin, prints the claims, exit 1 if invalid
  crosscheck.py dpop ALG HTU IAT -> prints {"proof": <DPoP proof for POST HTU>, "thumbprint": <RFC 7638, joserfc's>}
"""
import json
import sys
import uuid
import warnings

from joserfc import jwt
from joserfc.jwk import ECKey, OKPKey, RSAKey

warnings.simplefilter("ignore")

KEY_TYPES = {"RS256": RSAKey, "ES256": ECKey, "EdDSA": OKPKey}


def generate(alg):
    if alg == "RS256":
        return RSAKey.generate_key(2048)
    if alg == "ES256":
        return ECKey.generate_key("P-256")
    return OKPKey.generate_key("Ed25519")


def main():
    mode, alg = sys.argv[1], sys.argv[2]
    if mode == "sign":
        key = generate(alg)
        token = jwt.encode({"alg": alg, "kid": "python"}, {"sub": "signed-by-python", "iss": "joserfc"}, key, algorithms=[alg])
        print(json.dumps({"jwk": dict(key.as_dict(private=False), kid="python"), "token": token}))
        return 0
    if mode == "dpop":
        key = generate(alg)
        header = {"typ": "dpop+jwt", "alg": alg, "jwk": key.as_dict(private=False)}
        claims = {"jti": str(uuid.uuid4()), "htm": "POST", "htu": sys.argv[3], "iat": int(sys.argv[4])}
        proof = jwt.encode(header, claims, key, algorithms=[alg])
        print(json.dumps({"proof": proof, "thumbprint": key.thumbprint()}))
        return 0
    request = json.load(sys.stdin)
    key = KEY_TYPES[alg].import_key(request["jwk"])
    try:
        decoded = jwt.decode(request["token"], key, algorithms=[alg])
    except Exception as error:  # any failure to verify is a rejection
        print(type(error).__name__, file=sys.stderr)
        return 1
    print(json.dumps(decoded.claims))
    return 0


if __name__ == "__main__":
    sys.exit(main())
