#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""How often `cglint suggest` picks what NVIDIA chose by hand in Bridge's perf recipes.

usage: suggest_perf_table.py CGLINT [TREE] [--mcore DIR] [--allow-full-iteration] [--json FILE]

Runs `CGLINT suggest --format json` on TREE's src/megatron/bridge/perf_recipes (with Megatron-LM's
megatron/ package on --python-path, as bridge_truth.py finds it) and compares, for every recipe
function (helpers excluded: those whose name starts with '_'), the impl and scope/modules the
function sets with the suggestion's. Most perf recipes read their model from a Hugging Face config,
so cglint branches on num_moe_experts (and the capacity factor); the branch compared is the one
the model is: MoE for the families whose models are MoE (MOE below: names from the models' own
cards), dropless (no capacity factor: what those families' Bridge providers set). That choice is
this script's, not cglint's, and is printed with each row.

Prints a markdown table by family: units, equal, and each kind of difference:
  off       NVIDIA leaves graphs off (impl none), the suggestion turns them on
  narrower  NVIDIA graphs fewer modules than the suggestion (a subset)
  wider     NVIDIA graphs more (whole layers, moe, full iteration): the suggestion keeps theirs
  other     different modules, neither a subset of the other
  none      no candidate passes where NVIDIA has graphs on (where both are off: equal)
"""

import argparse
import collections
import json
import os
import re
import subprocess
import sys

from bridge_recipes import find_tree
from bridge_truth import find_mcore

# Model names that are mixture-of-experts: an active-parameter count (qwen3_30b_a3b), or the family.
MOE = re.compile(r"_a\d+b|deepseek|kimi|gpt_oss|qwen3_next|glm5|glm_4|minimax|olmoe|mixtral|moonlight|nemotron_3|step")


def scope_names(v):
    if v is None or v == "full" or v == []:
        return ("full",)
    if isinstance(v, str):
        return tuple(sorted(x for x in v.split(",") if x))
    return tuple(sorted(v))


def pick(unit):
    """The choice for the model the recipe builds, and what was assumed."""
    ch = unit["choices"]
    if len(ch) == 1:
        return ch[0], ""
    moe = bool(MOE.search(unit["function"]) or MOE.search(unit["path"]))
    for c in ch:
        w = c.get("when") or ""
        if ("(MoE)" in w) == moe and ("capacity factor" not in w or "(dropless)" in w):
            return c, "MoE, dropless" if moe else "dense"
    return ch[0], "?"


def kind(cur_impl, cur_scope, c):
    want_impl = c["impl"]
    if c["status"] in ("already",):
        return "equal"
    if c["status"] == "keep":
        return "wider"
    if c["status"] == "none-fits":
        return "equal" if cur_impl in (None, "none") else "none"     # both off
    if cur_impl in (None, "none"):
        return "off"
    have, want = set(scope_names(cur_scope)), set(scope_names(c["scope"]))
    if cur_impl == want_impl and have == want:
        return "equal"
    if "full" in have or "full_iteration" in have or cur_impl == "full_iteration":
        return "wider"
    if have < want:
        return "narrower"
    if have > want:
        return "wider"
    return "other"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cglint")
    ap.add_argument("tree", nargs="?")
    ap.add_argument("--allow-full-iteration", action="store_true")
    ap.add_argument("--json")
    a = ap.parse_args()
    tree, _ = find_tree(a.tree)
    mcore, _ = find_mcore()
    if not tree or not mcore:
        print("no Bridge tree or Megatron-LM package")
        return 77
    cmd = [os.path.abspath(a.cglint), "suggest", "--isolated", "--python-path", mcore, "--format", "json",
           "src/megatron/bridge/perf_recipes"] + (["--allow", "full-iteration"] if a.allow_full_iteration else [])
    doc = json.loads(subprocess.run(cmd, cwd=tree, capture_output=True, text=True).stdout)
    rows = []
    for u in doc["units"]:
        if not u.get("function") or u["function"].startswith("_"):
            continue
        c, assumed = pick(u)
        fam = u["path"].split("/")[4]
        k = kind(u["current"]["impl"], u["current"]["scope"], c)
        rows.append({"family": fam, "function": u["function"], "nvidia": [u["current"]["impl"], u["current"]["scope"]],
                     "suggest": [c["impl"], c["scope"], c["status"]], "assumed": assumed, "kind": k})
    by = collections.defaultdict(collections.Counter)
    pairs = collections.defaultdict(collections.Counter)
    for r in rows:
        by[r["family"]][r["kind"]] += 1
        n = r["nvidia"]
        pairs[r["family"]][(f"{n[0]} {list(scope_names(n[1]))}", f"{r['suggest'][0]} {r['suggest'][1]}", r["kind"])] += 1
    kinds = ["equal", "off", "narrower", "wider", "other", "none"]
    print("| family | units | " + " | ".join(kinds) + " |")
    print("|---|---|" + "---|" * len(kinds))
    tot = collections.Counter()
    for fam in sorted(by):
        c = by[fam]
        tot.update(c)
        print(f"| {fam} | {sum(c.values())} | " + " | ".join(str(c[k]) for k in kinds) + " |")
    print(f"| all | {sum(tot.values())} | " + " | ".join(str(tot[k]) for k in kinds) + " |")
    print()
    for fam in sorted(pairs):
        for (nv, sg, k), n in sorted(pairs[fam].items(), key=lambda x: -x[1]):
            print(f"  {fam}: {n} x NVIDIA {nv} / suggest {sg} ({k})")
    if a.json:
        json.dump(rows, open(a.json, "w"), indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
