#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Recall and false reports of the source scanner on tests/realsrc/: files written after real
code (cuda-samples, nccl-tests, TransformerEngine), each hazard marked on its line with
`// expect: SEVERITY RULE[, SEVERITY RULE]`, clean edits unmarked (they must stay silent).

  measure.py CGLINT [--cuda-path DIR|none|auto] [--min-recall PCT]

Prints, per file and in total, hazards found / expected, false reports (a finding on a line
that expects none of its rule) and refused files (CG911, CG920); exits 1 when recall is under
--min-recall (default 95), or there is any false report or refused file."""
import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
EXPECT = re.compile(r"//\s*expect:\s*(.*)$")


def expected(path):
    want = set()
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            m = EXPECT.search(line)
            for item in (m.group(1).split(",") if m else []):
                sev, rule = item.split()
                want.add((n, sev, rule))
    return want


def found(cglint, path, cuda_path):
    cmd = [cglint, "--format", "json", "--cuda-path", cuda_path, path]
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=HERE, check=False)
    diags = json.loads(r.stdout)["diagnostics"]
    return {(d["line"], d["severity"], d["rule"]) for d in diags if os.path.basename(d["path"]) == os.path.basename(path)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cglint")
    ap.add_argument("--cuda-path", default="auto")
    ap.add_argument("--min-recall", type=float, default=95.0)
    a = ap.parse_args()
    a.cglint = os.path.abspath(a.cglint)
    files = sorted(f for f in os.listdir(HERE) if f.endswith((".cu", ".cpp")))
    hit = total = false = refused = 0
    for name in files:
        path = os.path.join(HERE, name)
        want, got = expected(path), found(a.cglint, path, a.cuda_path)
        bad = {g for g in got if g[2] in ("CG911", "CG920")}
        missed = sorted(want - got)
        extra = sorted(got - want - bad)
        hit += len(want) - len(missed)
        total += len(want)
        false += len(extra)
        refused += bool(bad)
        print(f"{name}: {len(want) - len(missed)}/{len(want)} found, {len(extra)} false" + (", REFUSED" if bad else ""))
        for m in missed:
            print(f"  missed {name}:{m[0]} {m[1]} {m[2]}")
        for x in extra:
            print(f"  false  {name}:{x[0]} {x[1]} {x[2]}")
    recall = 100.0 * hit / total if total else 100.0
    print(f"total: recall {hit}/{total} = {recall:.1f}%, {false} false reports, {refused} files refused "
          f"({len(files)} files, --cuda-path {a.cuda_path})")
    return 0 if recall >= a.min_recall and not false and not refused else 1


if __name__ == "__main__":
    sys.exit(main())
