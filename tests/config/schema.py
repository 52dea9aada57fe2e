#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The shipped JSON Schema for .cglint.yaml (docs/cglint-config.schema.json) is a valid
2020-12 schema, accepts every config in fixtures/ that cglint accepts, and rejects the broken
one (fixtures/project/bad) for the same mistakes cglint reports."""
import json
import pathlib
import sys

import jsonschema
import yaml

root = pathlib.Path(sys.argv[1])
schema = json.loads((root / "docs/cglint-config.schema.json").read_text())
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)
failures = []
configs = sorted(p for p in (root / "fixtures").rglob(".cglint.y*ml"))
if not configs:
    failures.append("no .cglint.yaml in fixtures/")
for p in configs:
    errors = sorted(e.message for e in v.iter_errors(yaml.safe_load(p.read_text())))
    bad = "bad" in p.parts
    if bad and not errors:
        failures.append(f"{p}: the schema accepts a config cglint rejects")
    if not bad and errors:
        failures.append(f"{p}: the schema rejects a config cglint accepts: {errors}")
    if bad:
        want = ["'fatal' is not one of ['error', 'warning', 'note', 'off']",
                "'paths' is a required property",
                "Additional properties are not allowed ('selct' was unexpected)"]
        if errors != sorted(want):
            failures.append(f"{p}: schema errors {errors}, expected {sorted(want)}")
for f in failures:
    print("config-schema: FAIL:", f)
print(f"config-schema: {len(configs)} config(s) checked")
sys.exit(1 if failures else 0)
