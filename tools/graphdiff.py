#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""graphdiff: what CUDA-graph-related validation changed between two refs of MCore or Bridge.

Usage:
    python3 tools/graphdiff.py mcore core_v0.19.0 main
    python3 tools/graphdiff.py mcore core_v0.19.0 2a75ac12
    python3 tools/graphdiff.py bridge v0.6.0 main [--json] [-v] [--expect tools/graphdiff-expected.txt]

What: for each source file in SOURCES (the entry points that validate configs), read the file at both
refs from a bare git mirror (`git cat-file`, no work tree), parse it with `ast`, and extract items:

  raise / assert / warn   every `raise X(...)`, `assert c, msg` and warning call (warnings.warn,
                          logger.warning, warn_rank_0, log_single_rank(..WARNING..), ...), with its
                          function's qualified name, the chain of enclosing `if` conditions (and
                          of early `if c: return` guards before it) and its message text (string
                          constants and f-string parts joined, local message variables resolved);
  rewrite                 `obj.X = ...` / `setattr(obj, "X", ...)` (also over a constant list of
                          names) in validation functions: __post_init__, finalize, validate*,
                          _validate*, runtime_config_update, setup, and the functions of the same
                          file they call;
  derive                  in graph-named code (e.g. _CudaGraphRunner.__init__), a value computed
                          from a config field (`...config.X`, `args.X`) that a rule reads or that
                          is graph-named;
  field                   fields (type = default) of the config dataclasses (class name with
                          Config, or ending in Provider or Container), with their docstrings;
  flag                    argparse add_argument flags (type, action, default, choices, ...).

Each item has a stable key (file, function, kind, normalized message or target), so the two refs
are matched without line numbers; a file renamed between the refs (git diff -M) keeps one key.
Items present at both refs with a different condition or value are "changed". Leftover removed
and added items of one function and kind with similar messages (difflib ratio >= 0.6) are paired
as "changed" (reworded); the same message in another function or file is "moved" when nothing
else differs (counted, listed with -v) and "changed" otherwise. Only items that are
CUDA-graph-related at either ref are printed, in two tiers:

  A  graph-named: the message, a condition, the target or value, the flag's help, the function
     or class, or the file name mentions cuda_graph / CudaGraph / cudagraph / te_rng_tracker /
     full_iteration / graph_capturing / capture;
  B  rule-read or graph-documented field: the item's own condition (its assert test, innermost
     `if` and early-return guards, following local variables two assignments back), message or
     target reads a field that some cglint rule reads (`model.X`, `ddp.X`, ... in the `when:` and
     `set:` of rules/*.yaml, compared on the last component), or names a config field whose
     docstring mentions CUDA graphs (at either ref). Outer `if` guards do not count for tier B,
     so a check is not related just because it sits inside `if self.num_moe_experts:`.

Coverage: for each item, the rules and normalization steps of rules/*.yaml whose `mirrors:` cite
the item's file at a line of its span at a ref that the mirror key names (`mcore 0.19` ->
core_v0.19.0, `bridge 0.6` -> v0.6.0, `bridge >=0.4` -> v0.4.0 and later tags, `mcore main` ->
main, `mcore main@2a75ac12` -> 2a75ac12, `bridge main` -> main; compared as commits), else whose
message equals the item's message. The span is the statement, from its `if` line when it opens
that `if`'s body; parenthesized remarks of a citation (call sites, other versions) are skipped.

Output: plain text grouped by added / changed / removed, one item a line, and a summary; --json
for machines; --expect FILE checks that the listed changes are found (exit 1 when one is missing)
and lists what was found that the file does not list. Otherwise the exit status is 0.
Python 3.11 standard library only.

Code: this file is the command (arguments, text and JSON output, --expect); the pipeline is the
package tools/graphs/: sources.py (SOURCES, the git mirror, pairing files across renames),
extract.py (the items of one file at one ref), match.py (matching the two refs, tiers, rule
coverage, diff_repo).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # tools/, for the graphs package

from graphs.extract import Item  # noqa: E402
from graphs.match import Change, diff_repo  # noqa: E402
from graphs.sources import SOURCES, Repo  # noqa: E402

DEFAULT_GIT = {
    "mcore": os.environ.get("CGLINT_MCORE_GIT", "/work/.mirror/NVIDIA+Megatron-LM/repo"),
    "bridge": os.environ.get("CGLINT_BRIDGE_GIT", "/work/.mirror/NVIDIA-NeMo+Megatron-Bridge/repo"),
}
RULES_DIR = Path(__file__).resolve().parent.parent / "rules"


# ---------------------------------------------------------------------------------------------
# Output.
def excerpt(text: str, width: int = 110) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    return text if len(text) <= width else text[: width - 3] + "..."


def loc(item: Item | None) -> str:
    if item is None:
        return "-"
    return f"{item.line}" if item.end == item.line else f"{item.line}-{item.end}"


def show(ch: Change) -> str:
    item = ch.item
    text = item.text if item.kind in ("raise", "assert", "warn") else f"{item.target}: {item.text}"
    if item.kind in ("raise", "assert", "warn") and not item.text:
        text = "(no message) " + (item.cond[-1] if item.cond else "")
    path = ch.file if not (ch.a and ch.a.path != ch.file) else f"{ch.a.path} => {ch.file}"
    what = f" ({ch.what})" if ch.what else ""
    rules = ", ".join(r.split()[0] for r in ch.rules) or "none"
    return (f"  {item.kind:7} {path}:{loc(ch.a)}|{loc(ch.b)}  {item.func or '<module>'}  "
            f"[{ch.tier}: {ch.reason}] \"{excerpt(text)}\"{what}  rules: {rules}")


def detail(ch: Change) -> list[str]:
    lines = []
    for side, item in (("a", ch.a), ("b", ch.b)):
        if item is None:
            continue
        if item.cond:
            lines.append(f"        {side} if: {excerpt(' / '.join(item.cond), 160)}")
        lines.append(f"        {side} text: {excerpt(item.text, 160)}")
    return lines


def print_text(result: dict, verbose: bool) -> None:
    changes = result["changes"]
    print(f"graphdiff {result['repo']} {result['ref_a']} ({(result['sha_a'] or '?')[:10]}) -> "
          f"{result['ref_b']} ({(result['sha_b'] or '?')[:10]}): {result['files']} source files")
    print("  file:<line at ref a>|<line at ref b>; tier A = graph-named, B = reads a field a "
          "cglint rule reads or a field documented as graph-related")
    for status in ("added", "changed", "removed"):
        group = [c for c in changes if c.status == status]
        print(f"\n{status.upper()} ({len(group)})")
        for ch in group:
            print(show(ch))
            if verbose:
                print("\n".join(detail(ch)))
    moved = result["moved"]
    print(f"\nMOVED ({len(moved)}: the same check, condition and message in another function or "
          f"class; {'listed' if verbose else 'listed with -v'})")
    for ch in moved if verbose else []:
        print(show(ch))
    print("\nsummary: " + summary(changes) + f"; {len(moved)} moved")


def summary(changes: list[Change]) -> str:
    parts = []
    for status in ("added", "changed", "removed"):
        group = [c for c in changes if c.status == status]
        a = sum(c.tier == "A" for c in group)
        parts.append(f"{len(group)} {status} (A {a}, B {len(group) - a})")
    covered = sum(bool(c.rules) for c in changes)
    return f"{', '.join(parts)}; {covered} of {len(changes)} covered by a rule"


def item_json(item: Item | None) -> dict | None:
    if item is None:
        return None
    out = dataclasses.asdict(item)
    out["reads"] = sorted(item.reads)
    return out


def to_json(result: dict) -> dict:
    return {**{k: v for k, v in result.items() if k not in ("changes", "moved")},
            "summary": summary(result["changes"]),
            "changes": [change_json(c) for c in result["changes"]],
            "moved": [change_json(c) for c in result["moved"]]}


def change_json(c: Change) -> dict:
    return {"status": c.status, "file": c.file, "what": c.what, "tier": c.tier, "reason": c.reason,
            "rules": list(c.rules), "a": item_json(c.a), "b": item_json(c.b)}


# ---------------------------------------------------------------------------------------------
# --expect: a maintainer's list of the changes a manual read found.
def load_expect(path: Path, repo_name: str, ref_a: str, ref_b: str) -> list[dict]:
    """Lines: ID REPO A..B[,A..B] STATUS[:KIND] FILE TEXT [# note]. STATUS is added, changed, removed,
    any (one of those) or absent (no such item may be listed); KIND (raise, field, ...) narrows it.
    FILE and TEXT are case-insensitive substrings of the path and of the item's message, target,
    value or function."""
    rows = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        line = line.split(" # ", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split(maxsplit=5)
        if len(parts) < 6:
            raise SystemExit(f"graphdiff: {path}:{n}: want ID REPO A..B STATUS FILE TEXT")
        cid, repo, span, status, file_sub, text = parts
        status, _, kind = status.partition(":")
        if repo == repo_name and f"{ref_a}..{ref_b}" in span.split(","):
            rows.append({"id": cid, "status": status, "kind": kind, "file": file_sub, "text": text,
                         "line": n})
    return rows


def matches(row: dict, ch: Change) -> bool:
    if row["status"] not in ("any", "absent") and row["status"] != ch.status:
        return False
    if row["kind"] and row["kind"] != ch.item.kind:
        return False
    paths = {ch.file} | {i.path for i in (ch.a, ch.b) if i}
    if not any(row["file"] in p for p in paths):
        return False
    hay = " ".join(f"{i.target} {i.text} {i.func}" for i in (ch.a, ch.b) if i).lower()
    return row["text"].lower() in hay


def check_expect(result: dict, path: Path, out=sys.stdout) -> int:
    """Print which expect lines hold and what no line lists; 1 when a line does not hold."""
    rows = load_expect(path, result["repo"], result["ref_a"], result["ref_b"])
    changes = result["changes"]
    failed, listed = [], set()
    for row in rows:
        hits = [i for i, ch in enumerate(changes) if matches(row, ch)]
        listed.update(hits)
        if (row["status"] == "absent") == bool(hits):
            failed.append(row)
    ids = ", ".join(dict.fromkeys(r["id"] for r in rows)) or "none"
    lines = [f"\nexpect ({path}): {len(rows) - len(failed)} of {len(rows)} lines hold (ids: {ids})"]
    for row in failed:
        want = "not to find" if row["status"] == "absent" else "to find"
        lines.append(f"  MISSING {row['id']} (line {row['line']}): expected {want} {row['status']} "
                     f"{row['kind']} {row['file']} \"{row['text']}\"")
    unlisted = [ch for i, ch in enumerate(changes) if i not in listed]
    lines.append(f"  found but listed by no line: {len(unlisted)}")
    lines += ["  " + show(ch).strip() for ch in unlisted]
    print("\n".join(lines), file=out)
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("repo", choices=sorted(SOURCES))
    ap.add_argument("ref_a")
    ap.add_argument("ref_b")
    ap.add_argument("--git-dir", help="bare mirror (default: $CGLINT_MCORE_GIT / $CGLINT_BRIDGE_GIT "
                                      "or the /work/.mirror paths)")
    ap.add_argument("--rules", default=str(RULES_DIR), help="cglint rule packs (default: %(default)s)")
    ap.add_argument("--json", action="store_true", help="print JSON")
    ap.add_argument("-v", "--verbose", action="store_true", help="print conditions and texts")
    ap.add_argument("--expect", metavar="FILE", help="check the changes FILE lists for this range")
    args = ap.parse_args(argv)

    repo = Repo(args.git_dir or DEFAULT_GIT[args.repo])
    for ref in (args.ref_a, args.ref_b):
        if repo.rev(ref) is None:
            raise SystemExit(f"graphdiff: {ref}: no such commit in {repo.git_dir}")
    result = diff_repo(args.repo, repo, args.ref_a, args.ref_b, Path(args.rules))
    if args.json:
        print(json.dumps(to_json(result), indent=1))
    else:
        print_text(result, args.verbose)
    if not args.expect:
        return 0
    # With --json the check goes to stderr, so that stdout stays one JSON document.
    return check_expect(result, Path(args.expect), sys.stderr if args.json else sys.stdout)


if __name__ == "__main__":
    sys.exit(main())
