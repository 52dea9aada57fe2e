#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`cglint suggest --fix` on Megatron-LM's own functional tests (tests/functional_tests/test_cases).

usage: mlm_tests_suggest.py CGLINT [TREE] [--mcore X.Y] [--min-patched N] [--json FILE] [-v]

TREE is a Megatron-LM checkout (core_v0.19.0: its root, holding tests/functional_tests); default:
CGLINT_MCORE_TREE, else bridge_truth.py's MCORE_PLACES. Without one: exit 77 (ctest: skipped).

1. Copies test_cases/ to a scratch folder, runs `CGLINT suggest --format json` there and then
   `--fix`. Each unit is counted by its answer: suggest (settings to write), already, keep (its own
   setting passes and captures more), none-fits, branches (depends on a key cglint cannot know);
   a unit with settings that --fix left alone is "not patched", with the reason cglint gave.
2. On the patched copy, `suggest` again must call every patched unit `already`, and
   `CGLINT --format json` must report no error or warning, per file and rule, that the original
   lacks, and no deprecation note (CG132, CG133) in a file --fix changed.
3. Every file --fix changed belongs to a patched unit, and at least --min-patched units of
   model_config.yaml files were patched (what core_v0.19.0 gives: 250; its 51 inference tests keep
   their own setting, since suggest ranks training graphs).
Exit 0 when all of that holds, 1 otherwise.
"""

import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from bridge_truth import MCORE_PLACES

SKIP = 77
CASES = "tests/functional_tests/test_cases"
NOT_PATCHED = re.compile(r"^cglint suggest: (.+?):(\d+)(?:: [^:]+)?: not patched: (.*)$")


def find_tree(arg):
    env = os.environ.get("CGLINT_MCORE_TREE")
    places = [arg] if arg else [env] if env else MCORE_PLACES
    for p in places:
        if p and os.path.isdir(os.path.join(p, CASES)):
            return os.path.join(p, CASES), places
    return None, places


def run(cglint, args, cwd):
    p = subprocess.run([cglint, *args], cwd=cwd, capture_output=True, text=True)
    if p.returncode > 1:
        sys.exit(f"cglint {' '.join(args)} exited {p.returncode}:\n{p.stderr}")
    return p


def units(cglint, target, cwd):
    doc = json.loads(run(cglint, ["suggest", *target, "--format", "json", "."], cwd).stdout)
    out = {}
    for u in doc["units"]:
        c = u["choices"]
        status = "branches" if len(c) > 1 else c[0]["status"] if c else "skipped"
        out[(os.path.normpath(u["path"]), u["line"])] = (status, bool(len(c) == 1 and c[0]["set"]))
    return out


DEPRECATED = ("CG132", "CG133")        # the scope MCore 0.18+ renamed; local + full_iteration


def errors(cglint, target, cwd):
    """Per (file, rule): errors and warnings, and the deprecation notes a patch must not leave."""
    doc = json.loads(run(cglint, [*target, "--format", "json", "."], cwd).stdout)
    return collections.Counter((os.path.normpath(d["path"]), d["rule"]) for d in doc["diagnostics"]
                               if d["severity"] != "note" or d["rule"] in DEPRECATED)


def snapshot(root):
    out = {}
    for d, _, files in os.walk(root):
        for f in files:
            p = os.path.join(d, f)
            with open(p, "rb") as fh:
                out[os.path.normpath(os.path.relpath(p, root))] = fh.read()
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cglint")
    ap.add_argument("tree", nargs="?")
    ap.add_argument("--mcore", default="0.19")
    ap.add_argument("--min-patched", type=int, default=250)
    ap.add_argument("--json")
    ap.add_argument("-v", action="store_true")
    a = ap.parse_args()
    cglint = os.path.abspath(a.cglint)
    cases, places = find_tree(a.tree)
    if not cases:
        print("skipped: no Megatron-LM checkout with " + CASES + " (CGLINT_MCORE_TREE); looked in: "
              + ", ".join(p for p in places if p))
        return SKIP
    target = ["--isolated", "--mcore", a.mcore]
    work = tempfile.mkdtemp(prefix="cglint-mlm-tests-")
    try:
        copy = os.path.join(work, "test_cases")
        shutil.copytree(cases, copy, symlinks=True)
        before_units, before_errors, before_text = units(cglint, target, copy), errors(cglint, target, copy), snapshot(copy)
        fix = run(cglint, ["suggest", *target, "--fix", "."], copy)
        refused = {}
        for line in fix.stderr.splitlines():
            m = NOT_PATCHED.match(line)
            if m:
                refused[(os.path.normpath(m.group(1)), int(m.group(2)))] = m.group(3)
        after_units, after_errors, after_text = units(cglint, target, copy), errors(cglint, target, copy), snapshot(copy)
        changed = {p for p in before_text if after_text.get(p) != before_text[p]}

        problems, counts, patched, reasons = [], collections.Counter(), [], collections.Counter()
        for key, (status, writes) in sorted(before_units.items()):
            counts[status] += 1
            if key in refused:
                reasons[refused[key]] += 1
            elif writes and status in ("suggest", "none-fits"):
                patched.append(key)
                again = after_units.get(key, ("missing", False))[0]
                if again != "already":
                    problems.append(f"{key[0]}:{key[1]}: patched, then suggest says {again}")
        for p in changed - {k[0] for k in patched}:
            problems.append(f"{p}: changed by --fix, but no unit of it was patched")
        for (p, rule), n in sorted(after_errors.items()):
            if n > before_errors.get((p, rule), 0) or (rule in DEPRECATED and p in changed):
                problems.append(f"{p}: {rule} after the patch ({n}, the original {before_errors.get((p, rule), 0)})")
        yaml_patched = sum(1 for k in patched if k[0].endswith("model_config.yaml"))
        if yaml_patched < a.min_patched:
            problems.append(f"only {yaml_patched} model_config.yaml units patched (at least {a.min_patched})")

        print(f"{len(before_units)} units in {CASES} ({len(before_text)} files), MCore {a.mcore}: "
              + ", ".join(f"{n} {s}" for s, n in counts.most_common()))
        print(f"patched: {len(patched)} units ({yaml_patched} model_config.yaml) in {len(changed)} files; "
              f"after the patch: {sum(after_units.get(k, ('',))[0] == 'already' for k in patched)} already")
        for why, n in reasons.most_common():
            print(f"not patched: {n} x {why}")
        print(f"errors, warnings and deprecation notes: {sum(before_errors.values())} before, "
              f"{sum(after_errors.values())} after")
        for p in problems:
            print("FAIL " + p)
        if a.json:
            with open(a.json, "w") as f:
                json.dump({"units": len(before_units), "counts": counts, "patched": len(patched),
                           "yaml_patched": yaml_patched, "not_patched": reasons, "problems": problems}, f, indent=1)
        return 1 if problems else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
