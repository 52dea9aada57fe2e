#!/usr/bin/env python3
# Validate a JSON document (argv[2]) against a JSON Schema (argv[1]); print the first error.
import json
import sys

import jsonschema

schema = json.load(open(sys.argv[1]))
jsonschema.Draft7Validator.check_schema(schema)
errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(json.load(open(sys.argv[2]))), key=str)
for e in errors[:3]:
    print("%s: at %s: %s" % (sys.argv[2], "/".join(map(str, e.absolute_path)), e.message))
sys.exit(1 if errors else 0)
