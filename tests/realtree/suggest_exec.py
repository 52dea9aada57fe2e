#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`cglint suggest --fix` on real Megatron-Bridge recipes, checked by Bridge and MCore themselves.

usage: suggest_exec.py CGLINT [TREE] [--json FILE] [--max-fail N] [--keep DIR] [--cache DIR] [-v]
                      [--hf-cache DIR [--suggest-without-cache]] [--python PY] [--jobs N]

1. Copies TREE's src/ (Bridge v0.6.0: recipes/ and perf_recipes/ with everything they import)
   to a scratch folder and runs `CGLINT suggest --format json` there, then `--fix`. A unit is
   *patched* when it got one answer that writes settings (status suggest, or none-fits where
   turning graphs off is the answer); a unit whose answer depends on a key cglint cannot know
   (branches: a Hugging Face config) is left alone by --fix, and counted as such, unless --fix
   writes its own setting in the target's spelling (the unit's "spelling": its deprecated
   cuda_graph_scope renamed, local + full_iteration as the full_iteration impl): then it is
   patched too, and must pass with the impl and modules it had.
2. cglint on the patched copy: every error of a patched unit (its diagnostics name the function)
   is listed, and whether the original had it; `suggest` again must call it `already`; and no
   patched function may assign a key twice in its own statements where the original did not.
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

Recipes whose model is a Hugging Face config (AutoBridge.from_hf_pretrained("org/name")):
--hf-cache DIR runs cglint and the executions with HF_HUB_CACHE=DIR HF_HUB_OFFLINE=1, DIR being a
stand-in cache made by hf_standin.py (transformers' own config class for each architecture, its
defaults: not the models' own sizes), and needs a Python (--python PY, else as above) with the
real transformers: without it, exit 77 with the reason. --suggest-without-cache: cglint runs
with an empty cache instead (so it branches on the model's keys, and --fix writes the branches),
the executions still with DIR; a branched unit is judged by the branch the executed model takes.
--jobs N splits each execution over N processes (a machine with the cores for it).
"""

import argparse
import ast
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
MOE_KEYS = ["model.num_moe_experts", "model.moe_expert_capacity_factor", "model.moe_pad_expert_input_to_capacity"]
JOBS = [1]              # --jobs
EXEC_TIMEOUT = [280]    # seconds for one execution
UNIT = re.compile(r"\(in ([A-Za-z_][A-Za-z0-9_]*)\)")
CGLINT_ENV = [None]     # the environment cglint runs in (None: this one)


def cglint_json(cglint, cwd, mcore, args, paths=FOLDERS):
    p = subprocess.run([cglint, *args[:1], "--isolated", "--python-path", mcore, "--format", "json", *args[1:], *paths],
                       cwd=cwd, capture_output=True, text=True, env=CGLINT_ENV[0])
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


def answer(unit, branches=False):
    """The suggestion --fix writes for UNIT (None: none); with BRANCHES, a unit with branches
    (each of which --fix writes under an if) is answered by its list of choices."""
    ch = unit["choices"]
    if len(ch) != 1 and branches and all(c["set"] and c["status"] in ("suggest", "none-fits") for c in ch):
        return {"branches": ch, "impl": "branches", "scope": None, "status": "branches", "set": []}
    c = ch[0] if len(ch) == 1 else None
    if c and c["set"] and c["status"] in ("suggest", "none-fits"):
        return c
    if unit.get("spelling"):    # a setting left as it is, written as the target spells it
        return {**unit["spelling"], "status": "spelling"}
    return None


def assigned(root, path, function):
    """How often FUNCTION in PATH assigns each attribute (cfg.model.x) in its own statements."""
    src = open(os.path.join(root, path), encoding="utf-8").read()
    fn = next((f for f in ast.parse(src).body if isinstance(f, ast.FunctionDef) and f.name == function), None)
    out = collections.Counter()
    for st in fn.body if fn else []:
        for tg in st.targets if isinstance(st, ast.Assign) else []:
            for x in tg.elts if isinstance(tg, ast.Tuple) else [tg]:
                if isinstance(x, ast.Attribute):
                    out[ast.unparse(x)] += 1
    return out


def twice(tree, copy, path, function):
    """The keys the patched FUNCTION assigns more than once where the original did not."""
    before, after = assigned(tree, path, function), assigned(copy, path, function)
    return sorted(k for k, n in after.items() if n > 1 and n > before[k])


def changed(tree, copy, path, function):
    """Whether FUNCTION's text in PATH differs between TREE and its COPY."""
    def text(root):
        src = open(os.path.join(root, path), encoding="utf-8").read()
        fn = next((f for f in ast.parse(src).body if isinstance(f, ast.FunctionDef) and f.name == function), None)
        return ast.get_source_segment(src, fn) if fn else None
    return text(tree) != text(copy)


def branch_taken(choices, truth):
    """The choice whose 'when' holds for the executed model's MoE keys (None: none does)."""
    v = {k: truth.get(k, {}).get("value") for k in MOE_KEYS}
    moe = v["model.num_moe_experts"] not in (None, 0)
    cf = v["model.moe_expert_capacity_factor"]
    want = ("dense" if not moe else "dropless" if cf is None else
            "padded" if v["model.moe_pad_expert_input_to_capacity"] else "no padding")
    for c in choices:
        tags = re.findall(r"\(([^()]*)\)", c["when"])
        if tags and tags[-1] == want or (want != "dense" and tags == ["MoE"]):
            return c
    return None


def start(python, tree, mcore, only, out, ckpt):
    """bridge_exec.py on 'only' (path:function) in 'tree', started in --jobs processes; finish()
    waits for them and writes their records together to 'out'."""
    runs = []
    n = max(1, min(JOBS[0], len(only)))
    for i in range(n):
        # what every PEFT launch passes: validate() asserts it is set and the folder exists, nothing more
        cmd = [python, EXEC, "--bridge", tree, "--mcore", mcore, "--keys", ",".join(KEYS + MOE_KEYS),
               "--out", f"{out}.{i}", "--launch", f"checkpoint.pretrained_checkpoint={ckpt}"]
        for o in only[i::n]:
            cmd += ["--only", o]
        runs.append(subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True))
    return runs, out


def finish(run):
    procs, out = run
    doc = None
    for i, proc in enumerate(procs):
        try:
            _, err = proc.communicate(timeout=EXEC_TIMEOUT[0])
        except subprocess.TimeoutExpired:
            for p in procs:
                p.kill()
            sys.exit(f"bridge_exec.py ran over {EXEC_TIMEOUT[0]} s")
        if proc.returncode or not os.path.exists(f"{out}.{i}"):
            sys.exit(f"bridge_exec.py failed ({proc.returncode}): {err[-3000:]}")
        part = json.load(open(f"{out}.{i}"))
        if "fatal" in part:
            sys.exit(f"bridge_exec.py: {part['fatal']}")
        if doc:
            doc["functions"] += part["functions"]
            doc["stand_ins"] = sorted(set(doc.get("stand_ins", [])) | set(part.get("stand_ins", [])))
        else:
            doc = part
    json.dump(doc, open(out, "w"))
    return {(f["path"], f["function"]): f for f in doc["functions"]}


def execute(python, tree, mcore, only, out, ckpt):
    return finish(start(python, tree, mcore, only, out, ckpt))


def cached_original(cache, python, tree, mcore, only, out, ckpt):
    """The original recipes' execution: it depends on the tree, MCore and the harness, never on
    cglint, so it is kept in 'cache' under a hash of those (None: started, not cached yet)."""
    h = hashlib.sha256()
    for o in sorted(only):
        h.update(o.encode())
    h.update(bridge_truth.tree_hash(tree, mcore, python, KEYS + MOE_KEYS).encode())
    h.update(hf_cache_hash().encode())
    path = os.path.join(cache, f"orig-{h.hexdigest()[:20]}.json") if cache else None
    if path and os.path.exists(path):
        return path, None
    return path, start(python, tree, mcore, only, out, ckpt)


def hf_cache_hash():
    """The stand-in configs the executions read (HF_HUB_CACHE under --hf-cache), hashed."""
    h = hashlib.sha256()
    top = os.environ.get("HF_HUB_CACHE") if os.environ.get("HF_HUB_OFFLINE") else None
    for d, dirs, files in os.walk(top) if top else ():
        dirs.sort()
        for n in sorted(files):
            if n == "config.json":
                h.update(os.path.relpath(os.path.join(d, n), top).encode())
                h.update(open(os.path.join(d, n), "rb").read())
    return h.hexdigest()


def use_hf_cache(a, python):
    """--hf-cache: the environment every cglint and bridge_exec.py run inherits; the reason it
    cannot be used (no cache, no real transformers), or None."""
    if not os.path.isfile(os.path.join(a.hf_cache, "STANDIN.json")):
        return f"no stand-in Hugging Face cache in {a.hf_cache} (tests/realtree/hf_standin.py generate DIR)"
    p = subprocess.run([python, "-c", "import transformers; print(transformers.__version__)"],
                       capture_output=True, text=True)
    if p.returncode:
        return f"{python} has no transformers (the Hugging Face configs need the real library)"
    os.environ["HF_HUB_CACHE"] = os.path.abspath(a.hf_cache)
    os.environ["HF_HUB_OFFLINE"] = "1"
    man = json.load(open(os.path.join(a.hf_cache, "STANDIN.json")))
    none = sorted(m for m, r in man["models"].items() if "error" in r)
    print(f"Hugging Face configs: {a.hf_cache}, made with transformers {man['transformers']}, read with "
          f"transformers {p.stdout.strip()} ({python}): {man['label']}; {len(man['models']) - len(none)} of "
          f"{len(man['models'])} model ids" + (f", none for {', '.join(none)}" if none else ""))
    return None


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
    ap.add_argument("--hf-cache", help="a stand-in Hugging Face cache (hf_standin.py) for cglint and the executions")
    ap.add_argument("--suggest-without-cache", action="store_true",
                    help="with --hf-cache: cglint suggests without it (branches), the executions read it")
    ap.add_argument("--python", help="the Python that executes the recipes (CGLINT_TORCH_PYTHON)")
    ap.add_argument("--jobs", type=int, default=1, help="processes for each execution")
    ap.add_argument("--exec-timeout", type=int, default=280, help="seconds for one execution")
    a = ap.parse_args()
    JOBS[0], EXEC_TIMEOUT[0] = a.jobs, a.exec_timeout
    if a.python:
        os.environ["CGLINT_TORCH_PYTHON"] = a.python
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
    if a.hf_cache:
        why = use_hf_cache(a, python)
        if why:
            print(f"skipped: {why}")
            return SKIP
    work = a.keep or tempfile.mkdtemp(prefix="cglint-suggest-exec-")
    if a.suggest_without_cache:
        empty = os.path.join(work, "no-hf-cache")
        os.makedirs(empty, exist_ok=True)
        CGLINT_ENV[0] = {**os.environ, "HF_HUB_CACHE": empty}
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
    # the units that need a Hugging Face config: those with branches when cglint has no cache
    hf_units = set()
    if a.hf_cache:
        env, CGLINT_ENV[0] = CGLINT_ENV[0], {**os.environ, "HF_HUB_CACHE": os.path.join(work, "no-hf-cache")}
        os.makedirs(CGLINT_ENV[0]["HF_HUB_CACHE"], exist_ok=True)
        hf_units = {(u["path"], u["function"]) for u in cglint_json(cglint, tree, mcore, ["suggest"])["units"]
                    if u.get("function") and len(u["choices"]) > 1}
        CGLINT_ENV[0] = env
    fix = subprocess.run([cglint, "suggest", "--isolated", "--python-path", mcore, "--fix", *FOLDERS], cwd=copy,
                         capture_output=True, text=True, env=CGLINT_ENV[0])
    if fix.returncode:
        sys.exit(f"cglint suggest --fix: exit {fix.returncode}: {fix.stderr[-2000:]}")
    units = {(u["path"], u["function"]): u for u in before["units"] if u.get("function")}
    patched = {k: answer(u, a.suggest_without_cache) for k, u in units.items() if answer(u, a.suggest_without_cache)}
    # a unit with branches counts as patched only where --fix wrote them
    patched = {k: c for k, c in patched.items() if "branches" not in c or changed(tree, copy, *k)}
    left = [u for k, u in units.items() if len(u["choices"]) > 1 and k not in patched]
    branched = len(left)
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
    for r in rows:
        r["assigned_twice"] = twice(tree, copy, r["path"], r["function"])
    count = collections.Counter(r["result"] for r in rows)
    dup = [f"{r['function']}: {', '.join(r['assigned_twice'])}" for r in rows if r["assigned_twice"]]
    lint_err = sum(1 for r in rows if r["lint_errors"])
    lint_new = sum(1 for r in rows if r["lint_new_errors"])
    not_already = sum(1 for r in rows if r["result"] != "not run"
                      and not (r["suggest_again"] and set(r["suggest_again"]) <= {"already", "keep"}))
    print(f"{len(units)} recipe units; {len(patched)} patched by --fix"
          + f" ({sum(1 for c in patched.values() if c['status'] == 'spelling')} of them only respelled)"
          + (f" ({sum(1 for c in patched.values() if 'branches' in c)} with branches)" if a.suggest_without_cache else "")
          + f"; {branched} left alone with branches (the answer depends on a key cglint cannot know)")
    why_left = collections.Counter(
        re.sub(r"'[^']*'", "'…'", re.sub(r" at revision \w+| /\S+(?=\))", "", u.get("unknown") or "?"))[:120] for u in left)
    for w, n in why_left.most_common(6):
        print(f"  left alone ({n}): {w}")
    print("executed by Bridge+MCore validation: " + ", ".join(f"{count[r]} {r}" for r in ("pass", "fail", "differs", "not run")))
    if hf_units:
        hf = collections.Counter(r["result"] for r in rows if (r["path"], r["function"]) in hf_units)
        print(f"  of which {sum(hf.values())} need a Hugging Face config (branched without the cache): "
              + ", ".join(f"{hf[r]} {r}" for r in ("pass", "fail", "differs", "not run")))
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
    print(f"keys a patched function assigns twice: {len(dup)}" + "".join(f"\n  {d}" for d in dup[:10]))
    return 1 if failed > a.max_fail or lint_new or not_already or dup or not caught else 0


def judge(k, c, o, n, lint_before, lint_after, again):
    """One patched unit: its suggestion c, the original's and the patched run's records o and n."""
    if "branches" in c and n.get("status") == "accepted":
        # a patch with an if on the model's keys: the branch the executed model takes
        c = branch_taken(c["branches"], n["truth"]) or {**c, "impl": "no branch", "scope": None}
    row = {"path": k[0], "function": k[1], "impl": c["impl"], "scope": c["scope"], "status": c["status"],
           "set": {s["key"]: s["value"] for s in c["set"]},
           "lint_errors": lint_after.get(k, []),
           "lint_new_errors": [e for e in lint_after.get(k, []) if e.split(" ")[0] not in
                               {x.split(" ")[0] for x in lint_before.get(k, [])}],
           "suggest_again": [ch["status"] for ch in again.get(k, {}).get("choices", [])]}
    if c["status"] == "spelling":   # its setting stays: nothing left to respell
        row["suggest_again"] = ["spelling"] if again.get(k, {}).get("spelling") else ["already"]
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
