#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tools/citecheck.py finds what it must: the packs in tests/cites/ carry citations known to be
wrong, each marked on its line with `# expect: KIND[, KIND]` (on a rule's `doc: |` line for a
line reference inside its doc text). `citecheck.py check --rules tests/cites` must report exactly
those (line, kind) pairs. Then `moves --rewrite` on a copy of tests/cites/moves.yaml must carry its
0.18 citations to the lines 0.19 has (each line's `# rewrite:` comment), and `moves --add` must
write those lines as a new `mcore 0.19:` line beside each. Without the upstream
trees the test is skipped (exit 77).

usage: finds.py [ROOT]
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

SKIP = 77
ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.join(ROOT, "tests", "cites")
FINDING = re.compile(r"^(?P<pack>\S+?):(?P<line>\d+): .* @\S+: (?P<kind>[a-z-]+): ")


def expectations():
    """{(pack, line): {kind}} from the marks, and each doc block's line span."""
    want, blocks = {}, {}
    for name in sorted(os.listdir(HERE)):
        if not name.endswith(".yaml"):
            continue
        with open(os.path.join(HERE, name), encoding="utf-8") as f:
            lines = f.read().splitlines()
        for i, line in enumerate(lines, 1):
            m = re.search(r"#\s*expect:\s*(.+)$", line)
            if m:
                want[(name, i)] = {k.strip() for k in m.group(1).split(",")}
            if re.search(r"\bdoc:\s*\|", line):
                indent = len(line) - len(line.lstrip())
                end = i
                while end < len(lines) and (not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > indent):
                    end += 1
                blocks[name, i] = end
    return want, blocks


TOOL = os.path.join(ROOT, "tools", "citecheck.py")


def rewrites():
    """Mismatches of `moves --rewrite` against the `# rewrite:` comments of moves.yaml."""
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(os.path.join(HERE, "moves.yaml"), tmp)
        run = subprocess.run([sys.executable, TOOL, "moves", "--from", "core_v0.18.0", "--to", "core_v0.19.0",
                              "--rewrite", "--rules", tmp], capture_output=True, text=True)
        with open(os.path.join(tmp, "moves.yaml"), encoding="utf-8") as f:
            lines = f.read().splitlines()
    errors = [] if run.returncode in (0, 1) else [run.stdout + run.stderr]
    for i, line in enumerate(lines, 1):
        value, _, want = line.partition("# rewrite:")
        got = value.split(": ", 1)[-1].strip()
        if want and got != want.strip():
            errors.append(f"moves.yaml:{i}: rewrote to {got}, expected {want.strip()}")
    return errors


def adds():
    """Mismatches of `moves --add` against the same comments: the line it adds after each 0.18
    citation must read `mcore 0.19: ` and the lines 0.19 has, and the 0.18 line must stay."""
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(os.path.join(HERE, "moves.yaml"), tmp)
        run = subprocess.run([sys.executable, TOOL, "moves", "--from", "core_v0.18.0", "--to", "core_v0.19.0",
                              "--add", "mcore 0.19", "--rules", tmp], capture_output=True, text=True)
        with open(os.path.join(tmp, "moves.yaml"), encoding="utf-8") as f:
            lines = f.read().splitlines()
    errors = [] if run.returncode in (0, 1) else [run.stdout + run.stderr]
    for i, line in enumerate(lines, 1):
        value, _, want = line.partition("# rewrite:")
        if not want:
            continue
        added = lines[i] if i < len(lines) else ""
        if not value.strip().startswith("mcore 0.18:"):
            errors.append(f"moves.yaml:{i}: --add changed the 0.18 line: {line}")
        if added.strip() != f"mcore 0.19: {want.strip()}":
            errors.append(f"moves.yaml:{i + 1}: --add wrote {added.strip()!r}, expected 'mcore 0.19: {want.strip()}'")
    return errors


def main():
    run = subprocess.run([sys.executable, TOOL, "check", "--rules", HERE, "--skip-status", str(SKIP)],
                         capture_output=True, text=True)
    if run.returncode == SKIP:
        print(run.stdout.strip())
        return SKIP
    if run.returncode not in (0, 1):
        print(run.stdout + run.stderr)
        return 1
    want, blocks = expectations()
    got = {}
    for line in run.stdout.splitlines():
        m = FINDING.match(line)
        if not m:
            continue
        pack, num = os.path.basename(m["pack"]), int(m["line"])
        # a finding inside a doc text counts on the block's `doc: |` line
        num = next((start for (p, start), end in blocks.items() if p == pack and start < num <= end), num)
        got.setdefault((pack, num), set()).add(m["kind"])
    errors = []
    for key in sorted(set(want) | set(got)):
        if want.get(key, set()) != got.get(key, set()):
            errors.append(f"{key[0]}:{key[1]}: expected {sorted(want.get(key, []))}, got {sorted(got.get(key, []))}")
    if errors:
        print(run.stdout)
    errors += rewrites() + adds()
    for e in errors:
        print("finds:", e)
    print(f"finds: {sum(len(v) for v in want.values())} expected findings, {len(errors)} mismatches")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
