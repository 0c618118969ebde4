"""Independent check of C2SP signed notes and tlog-cosignature cosignature/v1 lines, on Python's `cryptography`.

  cosigcheck.py < request.json

The request is {"note": <signed note>, "log_vkey": <log verifier key (type 0x01)>, "witness_vkeys": [<type 0x04>]}.
Prints {"log": true|false, "cosigned": [{"name": ..., "time": ...}], "invalid": [names]} and exits 0 when the
log's signature and every named witness's cosignature verify, 1 otherwise. Written from the specifications
(c2sp.org/signed-note, c2sp.org/tlog-cosignature), not from authlog's code.
"""
import base64
import hashlib
import json
import struct
import sys

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey


def parse_vkey(vkey, sig_type):
    name, key_id_hex, blob_b64 = vkey.strip().split("+", 2)
    blob = base64.b64decode(blob_b64, validate=True)
    if blob[0] != sig_type or len(blob) != 33:
        raise ValueError("vkey of the wrong type")
    key = blob[1:]
    key_id = hashlib.sha256(name.encode() + b"\n" + bytes([sig_type]) + key).digest()[:4]
    if key_id.hex() != key_id_hex:
        raise ValueError("vkey key ID does not match")
    return name, key_id, Ed25519PublicKey.from_public_bytes(key)


def split_note(note):
    cut = note.rindex("\n\n")
    body = note[: cut + 1]
    lines = note[cut + 2 :].split("\n")
    if lines[-1] != "":
        raise ValueError("note does not end with a newline")
    signatures = []
    for line in lines[:-1]:
        if not line.startswith("\u2014 "):
            raise ValueError("bad signature line")
        name, b64 = line[2:].split(" ")
        signatures.append((name, base64.b64decode(b64, validate=True)))
    return body, signatures


def main():
    request = json.load(sys.stdin)
    body, signatures = split_note(request["note"])
    ok = True
    log_ok = False
    name, key_id, key = parse_vkey(request["log_vkey"], 0x01)
    for sig_name, blob in signatures:
        if sig_name == name and blob[:4] == key_id:
            try:
                key.verify(blob[4:], body.encode())
                log_ok = True
            except InvalidSignature:
                log_ok = False
                break
    ok = ok and log_ok
    cosigned, invalid = [], []
    for vkey in request["witness_vkeys"]:
        name, key_id, key = parse_vkey(vkey, 0x04)
        found = False
        for sig_name, blob in signatures:
            if sig_name != name or blob[:4] != key_id:
                continue
            found = True
            if len(blob) != 4 + 8 + 64:
                invalid.append(name)
                continue
            (timestamp,) = struct.unpack(">Q", blob[4:12])
            message = b"cosignature/v1\ntime " + str(timestamp).encode() + b"\n" + body.encode()
            try:
                key.verify(blob[12:], message)
                cosigned.append({"name": name, "time": timestamp})
            except InvalidSignature:
                invalid.append(name)
        if not found:
            invalid.append(name)
    ok = ok and not invalid
    print(json.dumps({"log": log_ok, "cosigned": cosigned, "invalid": invalid}))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
