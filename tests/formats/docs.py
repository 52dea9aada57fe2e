#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""docs/rules/ is what the build generates from the packs (BUILD/docs/rules, cmake/rule_docs.c):
the same files with the same text, none missing, none left over. When it fails, regenerate with
   cmake --build build && rm -f docs/rules/*.md && cp build/docs/rules/*.md docs/rules/

usage: docs.py ROOT BUILD"""
import pathlib
import sys

root, build = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
have = {p.name: p.read_text() for p in (root / "docs/rules").glob("*.md")}
want = {p.name: p.read_text() for p in (build / "docs/rules").glob("*.md")}
bad = []
if len(want) < 2:
    bad.append(f"{build}/docs/rules holds {len(want)} page(s): the build did not write them")
bad += [f"docs/rules/{n} is missing" for n in sorted(want.keys() - have.keys())]
bad += [f"docs/rules/{n} names no rule" for n in sorted(have.keys() - want.keys())]
bad += [f"docs/rules/{n} is stale" for n in sorted(want.keys() & have.keys()) if want[n] != have[n]]
for b in bad:
    print("rule-docs: FAIL:", b)
if bad:
    print("rule-docs: regenerate: cmake --build build && rm -f docs/rules/*.md && cp build/docs/rules/*.md docs/rules/")
print(f"rule-docs: {len(want)} page(s) compared")
sys.exit(1 if bad else 0)
