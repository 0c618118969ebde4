"""Validates OCSF events, one JSON document per line on standard input, with an implementation independent of
authlog's: the JSON Schema that `ocsf-json-schema` generates for each event's class and listed profiles from the
OCSF 1.8.0 schema as schema.ocsf.io exports it (bundled in that package), checked by `jsonschema` (Draft 2020-12).

Prints one JSON object: {"checked": N, "classes": {class_uid: count}, "problems": [{"line": i, "errors": [...]}]},
each error as "<path>: <message>". Exits 0 whether or not lines validate; 1 when the packages are missing.
"""
import json
import sys

try:
    from jsonschema import Draft202012Validator
    from ocsf_json_schema import OcsfJsonSchemaEmbedded, get_ocsf_schema
except ImportError as missing:
    print(f"ocsfcheck.py needs ocsf-json-schema and jsonschema: {missing}", file=sys.stderr)
    sys.exit(1)

schema = OcsfJsonSchemaEmbedded(get_ocsf_schema("1.8.0"))
validators = {}
report = {"checked": 0, "classes": {}, "problems": []}
for index, text in enumerate(sys.stdin.read().splitlines(), start=1):
    if not text.strip():
        continue
    event = json.loads(text)
    class_uid = event.get("class_uid")
    profiles = tuple(sorted((event.get("metadata") or {}).get("profiles") or []))
    key = (class_uid, profiles)
    errors = []
    if key not in validators:
        try:
            name = schema.lookup_class_name_from_uid(class_uid)
            validators[key] = Draft202012Validator(schema.get_class_schema(name, list(profiles)))
        except Exception as failure:  # an unknown class or profile
            validators[key] = None
            errors.append(f"class_uid {class_uid} with profiles {list(profiles)}: {failure!r}")
    validator = validators[key]
    if validator is not None:
        for error in sorted(validator.iter_errors(event), key=lambda e: list(map(str, e.absolute_path))):
            path = ".".join(str(part) for part in error.absolute_path) or "(event)"
            errors.append(f"{path}: {error.message[:300]}")
    report["checked"] += 1
    report["classes"][str(class_uid)] = report["classes"].get(str(class_uid), 0) + 1
    if errors:
        report["problems"].append({"line": index, "errors": errors})
print(json.dumps(report, sort_keys=True))
