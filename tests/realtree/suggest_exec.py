#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`cglint suggest --fix` on real Megatron-Bridge recipes, checked by Bridge and MCore themselves.

usage: suggest_exec.py CGLINT [TREE] [--json FILE] [--max-fail N] [--keep DIR] [--cache DIR] [-v]

1. Copies TREE's src/ (Bridge v0.6.0: recipes/ and perf_recipes/ with everything they import)
   to a scratch folder and runs `CGLINT suggest --format json` there, then `--fix`. A unit is
   *patched* when it got one answer that writes settings (status suggest, or none-fits where
   turning graphs off is the answer); a unit whose answer depends on a key cglint cannot know
   (branches: a Hugging Face config) is left alone by --fix, and counted as such.
2. cglint on the patched copy: every error of a patched unit (its diagnostics name the function)
   is listed, and whether the original had it; and `suggest` again must call it `already`.
3. Executes every patched recipe function twice with tests/realtree/bridge_exec.py (the same
   stand-ins as the truth harness: CPU, Debian's torch, no Hugging Face access): the original
   tree and the patched copy, each through Bridge's runtime_config_update(), which ends in
   ConfigContainer.validate(): Bridge's CUDA-graph and packed-sequence checks, then
   model.finalize(), MCore's TransformerConfig.__post_init__ with its CUDA-graph assertions.
   PEFT recipes get checkpoint.pretrained_checkpoint (an empty folder), which their launch always
   passes and validate() asserts is an existing path (bridge_exec.py --launch). Each patched unit is then:
     pass          the patched function passes validation wherever the original did, and the
                   impl and modules MCore holds afterwards are the suggestion's;
     fail          the original passes and the patched one raises: a cglint defect to fix;
     differs       passes, but MCore holds another impl or modules than suggested;
     not run       the original itself does not pass here (a Hugging Face config, a required
                   argument, a recipe that fails on its own): nothing to compare, with why.
Exit 0 when fail + differs <= --max-fail (default 0), 1 otherwise; 77 (ctest: skipped) when the
tree, Megatron-LM's megatron/ package or a Python with torch is missing (bridge_truth.py's
places and variables: CGLINT_BRIDGE_TREE, CGLINT_MCORE_TREE, CGLINT_TORCH_PYTHON).
Every run ends with a canary, so the comparison is known to be able to fail: a local per-layer
graph (which Bridge 0.6 rejects) written into one patched function of the copy, executed again,
must count as a failure, and cglint must report an error the original did not have.
"""

import argparse
import collections
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from bridge_recipes import FOLDERS, find_tree
import bridge_truth
from bridge_truth import EXEC, SKIP, find_mcore, find_python

KEYS = ["model.cuda_graph_impl", "model.cuda_graph_modules", "model.cuda_graph_scope", "model.use_te_rng_tracker",
        "rng.te_rng_tracker", "model.cuda_graph_warmup_steps", "env.NCCL_GRAPH_REGISTER",
        "dataset.offline_packing_specs.pad_cu_seqlens", "dataset.dataset_kwargs.pad_to_max_length"]
UNIT = re.compile(r"\(in ([A-Za-z_][A-Za-z0-9_]*)\)")


def cglint_json(cglint, cwd, mcore, args, paths=FOLDERS):
    p = subprocess.run([cglint, *args[:1], "--isolated", "--python-path", mcore, "--format", "json", *args[1:], *paths],
                       cwd=cwd, capture_output=True, text=True)
    try:
        return json.loads(p.stdout)
    except ValueError:
        sys.exit(f"cglint {' '.join(args)}: no JSON (exit {p.returncode}): {p.stderr[-2000:]}")


def errors_by_unit(doc):
    out = collections.defaultdict(list)
    for d in doc.get("diagnostics", []):
        if d["severity"] != "error":
            continue
        m = UNIT.search(d["message"])
        if m:
            out[(d["path"], m.group(1))].append(f"{d['rule']} {d['path']}:{d['line']}: {d['message'][:160]}")
    return out


def answer(unit):
    ch = unit["choices"]
    if len(ch) != 1:
        return None
    c = ch[0]
    if c["set"] and c["status"] in ("suggest", "none-fits"):
        return c
    return None


def start(python, tree, mcore, only, out, ckpt):
    """bridge_exec.py on 'only' (path:function) in 'tree', started; finish() waits for it."""
    # what every PEFT launch passes: validate() asserts it is set and the folder exists, nothing more
    cmd = [python, EXEC, "--bridge", tree, "--mcore", mcore, "--keys", ",".join(KEYS), "--out", out,
           "--launch", f"checkpoint.pretrained_checkpoint={ckpt}"]
    for o in only:
        cmd += ["--only", o]
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True), out


def finish(run):
    proc, out = run
    try:
        _, err = proc.communicate(timeout=280)
    except subprocess.TimeoutExpired:
        proc.kill()
        sys.exit("bridge_exec.py ran over 280 s")
    if proc.returncode or not os.path.exists(out):
        sys.exit(f"bridge_exec.py failed ({proc.returncode}): {err[-3000:]}")
    doc = json.load(open(out))
    if "fatal" in doc:
        sys.exit(f"bridge_exec.py: {doc['fatal']}")
    return {(f["path"], f["function"]): f for f in doc["functions"]}


def execute(python, tree, mcore, only, out, ckpt):
    return finish(start(python, tree, mcore, only, out, ckpt))


def cached_original(cache, python, tree, mcore, only, out, ckpt):
    """The original recipes' execution: it depends on the tree, MCore and the harness, never on
    cglint, so it is kept in 'cache' under a hash of those (None: started, not cached yet)."""
    h = hashlib.sha256()
    for o in sorted(only):
        h.update(o.encode())
    h.update(bridge_truth.tree_hash(tree, mcore, python, KEYS).encode())
    path = os.path.join(cache, f"orig-{h.hexdigest()[:20]}.json") if cache else None
    if path and os.path.exists(path):
        return path, None
    return path, start(python, tree, mcore, only, out, ckpt)


def names(v):
    if v is None or v == "full":
        return []
    return sorted(v if isinstance(v, list) else [v])


def inject_bad(copy, unit):
    """A local per-layer graph before the unit's last return: Bridge 0.6 rejects it (CG170)."""
    p = os.path.join(copy, unit["path"])
    lines = open(p).read().split("\n")
    # by name: --fix moved the lines below its first edit
    start = next(k for k, t in enumerate(lines) if re.match(rf"def {unit['function']}\(", t))
    for k in range(start + 1, len(lines)):
        if re.match(r"^\S", lines[k]):
            break
        m = re.match(r"^(\s+)return (\w+)\s*$", lines[k])
        if m:
            at, ind, name = k, m.group(1), m.group(2)
    lines.insert(at, f'{ind}{name}.model.cuda_graph_impl = "local"')
    open(p, "w").write("\n".join(lines))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cglint")
    ap.add_argument("tree", nargs="?")
    ap.add_argument("--json")
    ap.add_argument("--max-fail", type=int, default=0)
    ap.add_argument("--keep")
    ap.add_argument("-v", action="store_true")
    ap.add_argument("--cache", help="folder that keeps the original recipes' execution between runs")
    a = ap.parse_args()
    cglint = os.path.abspath(a.cglint)
    tree, tried = find_tree(a.tree)
    mcore, tried_m = find_mcore()
    python, tried_p = find_python()
    if not tree or not mcore or not python:
        print("skipped: " + "; ".join(
            s for s in [None if tree else "no Megatron-Bridge tree (tried " + ", ".join(map(str, tried)) + ")",
                        None if mcore else "no Megatron-LM megatron/ package (tried " + ", ".join(map(str, tried_m)) + ")",
                        None if python else "no Python with torch (tried " + ", ".join(tried_p) + ")"] if s))
        return SKIP
    work = a.keep or tempfile.mkdtemp(prefix="cglint-suggest-exec-")
    copy = os.path.join(work, "tree")
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(os.path.join(tree, "src"), os.path.join(copy, "src"))
    try:
        return run(a, cglint, tree, copy, work, mcore, python)
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)


def run(a, cglint, tree, copy, work, mcore, python):
    before = cglint_json(cglint, copy, mcore, ["suggest"])
    fix = subprocess.run([cglint, "suggest", "--isolated", "--python-path", mcore, "--fix", *FOLDERS], cwd=copy,
                         capture_output=True, text=True)
    if fix.returncode:
        sys.exit(f"cglint suggest --fix: exit {fix.returncode}: {fix.stderr[-2000:]}")
    units = {(u["path"], u["function"]): u for u in before["units"] if u.get("function")}
    patched = {k: answer(u) for k, u in units.items() if answer(u)}
    branched = sum(1 for u in units.values() if len(u["choices"]) > 1)
    files = sorted({p for p, _ in patched})         # cglint on the files --fix changed
    lint_before = errors_by_unit(cglint_json(cglint, tree, mcore, ["lint"], files))
    lint_after = errors_by_unit(cglint_json(cglint, copy, mcore, ["lint"], files))
    again = {(u["path"], u["function"]): u for u in cglint_json(cglint, copy, mcore, ["suggest"], files)["units"]}
    only = [f"{p}:{f}" for p, f in patched]
    ckpt = os.path.join(work, "pretrained")
    os.makedirs(ckpt, exist_ok=True)
    # the canary: one unit given the TE impl, broken on purpose in a copy of the patched tree, must
    # be caught by both checks; it runs beside the patched copy, and again after it where that
    # unit turned out not to pass
    canary = os.path.join(work, "canary")
    shutil.rmtree(canary, ignore_errors=True)
    shutil.copytree(os.path.join(copy, "src"), os.path.join(canary, "src"))
    k0 = next((k for k, c in sorted(patched.items()) if c["impl"] == "transformer_engine"), None)
    if k0:
        inject_bad(canary, units[k0])
    # the original and the patched copy run side by side; the original is cached across runs
    cache_path, orig_run = cached_original(a.cache, python, tree, mcore, only, os.path.join(work, "exec-orig.json"), ckpt)
    new_run = start(python, copy, mcore, only, os.path.join(work, "exec-patched.json"), ckpt)
    bad_run = start(python, canary, mcore, [f"{k0[0]}:{k0[1]}"], os.path.join(work, "exec-canary.json"), ckpt) if k0 else None
    if orig_run:
        orig = finish(orig_run)
        if cache_path:
            os.makedirs(a.cache, exist_ok=True)
            shutil.copyfile(orig_run[1], cache_path + ".tmp")
            os.replace(cache_path + ".tmp", cache_path)
    else:
        print(f"original recipes' execution: cached {cache_path}")
        orig = {(f["path"], f["function"]): f for f in json.load(open(cache_path))["functions"]}
    new = finish(new_run)
    rows = [judge(k, c, orig.get(k, {}), new.get(k, {}), lint_before, lint_after, again)
            for k, c in sorted(patched.items())]
    count = collections.Counter(r["result"] for r in rows)
    lint_err = sum(1 for r in rows if r["lint_errors"])
    lint_new = sum(1 for r in rows if r["lint_new_errors"])
    not_already = sum(1 for r in rows if r["result"] != "not run" and r["suggest_again"] not in (["already"], ["keep"]))
    print(f"{len(units)} recipe units; {len(patched)} patched by --fix; {branched} left alone (the answer depends on a key "
          f"cglint cannot know: a Hugging Face config)")
    print("executed by Bridge+MCore validation: " + ", ".join(f"{count[r]} {r}" for r in ("pass", "fail", "differs", "not run")))
    print(f"cglint on the patched copy: {lint_err} patched units with an error, {lint_new} with an error the original "
          f"did not have; {not_already} run units not 'already' on a second suggest")
    why_not = collections.Counter(r["why"][:90] for r in rows if r["result"] == "not run")
    for w, n in why_not.most_common():
        print(f"  not run ({n}): {w}")
    for r in rows:
        if r["result"] in ("fail", "differs") or (a.v and r["result"] != "not run") or r["lint_new_errors"]:
            print(f"  {r['result']}: {r['path']}: {r['function']}: {r['impl']} {r['scope']}"
                  + (f": {r['why']}" if r.get("why") and r["result"] != "pass" else ""))
            for e in r["lint_new_errors"]:
                print(f"      new lint error: {e}")
    if a.json:
        json.dump({"units": len(units), "patched": len(patched), "branched": branched, "counts": dict(count),
                   "rows": rows}, open(a.json, "w"), indent=1)
    failed = count["fail"] + count["differs"]
    passing = [(r["path"], r["function"]) for r in rows if r["result"] == "pass" and r["impl"] == "transformer_engine"]
    bad = finish(bad_run) if bad_run else None
    k = k0
    if k0 not in passing:
        k = passing[0]
        shutil.rmtree(canary)
        shutil.copytree(os.path.join(copy, "src"), os.path.join(canary, "src"))
        inject_bad(canary, units[k])
        bad = execute(python, canary, mcore, [f"{k[0]}:{k[1]}"], os.path.join(work, "exec-canary.json"), ckpt)
    lint_bad = errors_by_unit(cglint_json(cglint, canary, mcore, ["lint"], [k[0]]))
    r = judge(k, patched[k], orig[k], bad.get(k, {}), lint_before, lint_bad, again)
    caught = r["result"] == "fail" and r["lint_new_errors"]
    print(f"canary: cuda_graph_impl local written into {k[1]}: {r['result']}, new cglint errors "
          f"{[e.split(' ')[0] for e in r['lint_new_errors']]} ({'caught' if caught else 'NOT CAUGHT'})")
    return 1 if failed > a.max_fail or lint_new or not_already or not caught else 0


def judge(k, c, o, n, lint_before, lint_after, again):
    """One patched unit: its suggestion c, the original's and the patched run's records o and n."""
    row = {"path": k[0], "function": k[1], "impl": c["impl"], "scope": c["scope"], "status": c["status"],
           "set": {s["key"]: s["value"] for s in c["set"]},
           "lint_errors": lint_after.get(k, []),
           "lint_new_errors": [e for e in lint_after.get(k, []) if e.split(" ")[0] not in
                               {x.split(" ")[0] for x in lint_before.get(k, [])}],
           "suggest_again": [ch["status"] for ch in again.get(k, {}).get("choices", [])]}
    if o.get("status") != "accepted":
        row["result"] = "not run"
        row["why"] = o.get("error") or o.get("status") or "not executed"
    elif n.get("status") != "accepted" or set(n.get("dp", [])) < set(o.get("dp", [])):
        row["result"] = "fail"
        row["why"] = f"{n.get('stage')}: {n.get('error')} ({n.get('at')})"
    else:
        t = n["truth"]
        impl = t["model.cuda_graph_impl"].get("value")
        mods = names(t["model.cuda_graph_modules"].get("value"))
        want_impl = c["impl"] or "none"
        want = names(c["scope"]) if want_impl == "transformer_engine" else mods
        if impl != want_impl or mods != want:
            row["result"] = "differs"
            row["why"] = f"MCore holds {impl} {mods}, suggested {want_impl} {want}"
        else:
            row["result"] = "pass"
    return row


if __name__ == "__main__":
    sys.exit(main())
