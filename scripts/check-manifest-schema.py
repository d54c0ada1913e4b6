#!/usr/bin/env python3
"""Checks run manifests against docs/manifest.schema.json with a kept validator
(jsonschema, Draft 2020-12, formats checked).

The schema is the manifest's contract for other tools, so it must name every key
the writer writes: an object that lists `properties` and says nothing of others
is checked as if it said `unevaluatedProperties: false`, and a key the schema does
not know is an error here (add it to the schema, or do not write it).

Usage: scripts/check-manifest-schema.py MANIFEST.json[.zst]...   (exit 1 and the problems when one fails)
"""
import json
import os
import subprocess
import sys

import jsonschema


COMPOSITION = ("allOf", "anyOf", "oneOf")


def composed_refs(schema, inside=False, found=None):
    """Names of the $defs used as a branch of allOf/anyOf/oneOf: those are parts of
    an object, not objects, and stay open (the whole is closed where it is composed)."""
    found = set() if found is None else found
    if isinstance(schema, dict):
        if inside and isinstance(schema.get("$ref"), str) and schema["$ref"].startswith("#/$defs/"):
            found.add(schema["$ref"].split("/")[-1])
        for key, value in schema.items():
            composed_refs(value, key in COMPOSITION, found) if key in COMPOSITION else composed_refs(value, False, found)
    elif isinstance(schema, list):
        for item in schema:
            composed_refs(item, inside, found)
    return found


def closed(schema, open_defs, inside=False, name=None):
    """The schema with every object that lists properties (or composes them) closed to
    others: `unevaluatedProperties: false`, which sees what allOf branches evaluated."""
    if isinstance(schema, list):
        return [closed(item, open_defs, inside) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key == "$defs":
            out[key] = {n: closed(v, open_defs, n in open_defs, n) for n, v in value.items()}
        elif key in ("properties", "patternProperties"):
            out[key] = {n: closed(v, open_defs) for n, v in value.items()}
        else:
            out[key] = closed(value, open_defs, key in COMPOSITION)
    shapes = "properties" in out or any(key in out for key in COMPOSITION)
    if shapes and not inside and not any(k in out for k in ("additionalProperties", "unevaluatedProperties", "patternProperties")):
        out["unevaluatedProperties"] = False
    return out


def main() -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "docs", "manifest.schema.json"), encoding="utf-8") as handle:
        raw = json.load(handle)
    schema = closed(raw, composed_refs(raw))
    validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    failed = 0
    for path in sys.argv[1:]:
        with open(path, "rb") as handle:
            raw_bytes = handle.read()
        # A run's manifest is seekable zstd (`.json.zst`): read as any reader reads it.
        if raw_bytes[:4] == b"\x28\xb5\x2f\xfd":
            raw_bytes = subprocess.run(["zstd", "-dc", path], check=True, capture_output=True).stdout
        document = json.loads(raw_bytes.decode("utf-8"))
        errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
        for error in errors[:20]:
            where = "/".join(str(part) for part in error.absolute_path) or "(top)"
            print(f"{path}: {where}: {error.message}")
        if errors:
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
