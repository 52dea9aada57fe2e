#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""docs/development.md's layout table names every file of lint/ by its module (the stand-in headers
under lint/source/shim/ are not modules; x.c, x.h and x.def are module x), and every stage folder
that tests/layers.py orders; no source file of lint/ or tools/ is over 800 lines.

usage: layout.py ROOT
"""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1])
doc = (root / "docs/development.md").read_text()
table = "\n".join(line for line in doc.splitlines() if line.startswith("| `"))
errors = []
for p in sorted((root / "lint").rglob("*")):
    if not p.is_file() or "shim" in p.parts:
        continue
    if not re.search(r"`" + re.escape(p.stem) + r"(\.(c|h|cu|def))?`", table):
        errors.append(f"{p.relative_to(root)}: module `{p.stem}` is not in docs/development.md's layout table")
# No source file over 800 lines (the house rule: split along the data flow); the scanner's
# stand-in system headers are data, not code.
for folder in ("lint", "tools"):
    for p in sorted((root / folder).rglob("*")):
        if p.is_file() and p.suffix in (".c", ".h", ".cu", ".def", ".py") and "shim" not in p.parts:
            n = p.read_bytes().count(b"\n")
            if n > 800:
                errors.append(f"{p.relative_to(root)}: {n} lines, over 800: split it along the data flow")
for stage in sorted(d.name for d in (root / "lint").iterdir() if d.is_dir()):
    if f"| `{stage}/` |" not in table:
        errors.append(f"lint/{stage}/: no row in docs/development.md's layout table")
for e in errors:
    print("layout:", e)
print(f"layout: {len(errors)} problems")
sys.exit(1 if errors else 0)
