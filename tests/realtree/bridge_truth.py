#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Ground truth for cglint's Python front-end: real Megatron-Bridge v0.6.0 recipes, executed.

usage: bridge_truth.py CGLINT [TREE] [--min-equal PCT] [--max-wrong N] [--json FILE] [-v]
                       [--cache DIR] [--refresh] [--facts FILE] [--self-test]

Every recipe function of src/megatron/bridge/recipes and perf_recipes (a module-level function
whose return annotation names ConfigContainer) is called for real under a Python with torch, and
its ConfigContainer handed to Bridge's own runtime_config_update(), as pretrain() does before
anything distributed (tests/realtree/bridge_exec.py says how, and which stand-ins it uses). The
values Bridge's validation then holds, for every key cglint's rules read, are compared with
`CGLINT facts --format json` on the same folders, function by function and key by key:
  equal    cglint knows the key and its value is Bridge's;
  unknown  cglint does not know it (no such key in its unit, or known: false; its `why` is the
           cause, "no why" when it gives none, "not mentioned" when the key is absent);
  wrong    cglint knows a value and it is not Bridge's;
  no unit  the function is one cglint has no unit for.
A key Bridge recomputes from the data-parallel size (the world size of the run) has no single
truth: it is listed as "not knowable" and left out of the figures, as is env.NAME for a variable
the recipe leaves unset (the launching shell decides it), and a key whose value changes when
Bridge's machine probes answer the other way (a default_factory asking whether a fused kernel's
module imports: model.gradient_accumulation_fusion; bridge_exec.py step 4).

Keys compared: every `defaults:` key and every `suggest:` key of rules/defaults.yaml, and
env_vars.NAME / env.NAME for every environment variable a pack reads (env.NAME in rules/*.yaml).
env_vars.NAME the recipe does not set has the truth null; env.NAME is the value os.environ holds
after Bridge's apply_environment_variables (setdefault) in a clean environment: a string.

Places: TREE, else $CGLINT_BRIDGE_TREE, else the first of bridge_recipes.py's PLACES;
Megatron-LM's megatron/ package from $CGLINT_MCORE_TREE, else MCORE_PLACES; the Python from
$CGLINT_TORCH_PYTHON, else /usr/bin/python3 or python3 if it imports torch. Any of them missing:
exit 77 (ctest: skipped), naming what was looked for.

The execution takes a minute or two; its result is cached in --cache DIR (default
$CGLINT_TRUTH_CACHE, else $TMPDIR/cglint-bridge-truth) under a hash of the recipe files, MCore's
transformer_config.py, bridge_exec.py, the keys and the Python; --refresh runs it again.

--min-equal PCT   exit 1 if fewer than PCT% of the known values are equal
--max-wrong N     exit 1 if more than N values are wrong
--json FILE       the whole comparison (every function, key, truth, cglint's value, layer, at, why)
--facts FILE      compare with this `cglint facts --format json` output instead of running CGLINT
--self-test       check that the comparison can fail: a synthetic truth and facts pair with one
                  wrong value must exit 1 under --max-wrong 0 and 0 without it; with a tree, the
                  real facts doctored with one wrong value must raise the wrong count by one
"""

import argparse
import collections
import copy
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from bridge_recipes import FOLDERS, find_tree   # the Bridge checkout: the same places, PLACES

SKIP = 77
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
MCORE_PLACES = ["/tmp/mlm19", "/tmp/Megatron-LM", "../Megatron-LM", "../../Megatron-LM",
                "/work/Megatron-LM", "/opt/Megatron-LM", os.path.expanduser("~/Megatron-LM")]
PYTHONS = ["/usr/bin/python3", "python3"]
EXEC = os.path.join(HERE, "bridge_exec.py")
EXEC_TIMEOUT = 240          # seconds for the whole execution (ctest's limit is 300)
SHARDS = 2


# --- places -------------------------------------------------------------------------------

def find_mcore():
    tried = []
    env = os.environ.get("CGLINT_MCORE_TREE")
    for p in ([env] if env else []) + MCORE_PLACES:
        for root in (p, os.path.join(p, "src") if p else None):
            if root and os.path.isfile(os.path.join(root, "megatron/core/transformer/transformer_config.py")):
                return root, tried
        tried.append(p)
        if p == env:
            return None, tried
    return None, tried


def find_python():
    tried = []
    env = os.environ.get("CGLINT_TORCH_PYTHON")
    for p in ([env] if env else []) + PYTHONS:
        exe = shutil.which(p)
        if exe:
            try:
                ok = subprocess.run([exe, "-c", "import torch"], capture_output=True, timeout=120).returncode == 0
            except (OSError, subprocess.TimeoutExpired):
                ok = False
            if ok:
                return exe, tried
        tried.append(f"{p} (no torch)" if exe else f"{p} (not found)")
        if p == env:
            return None, tried
    return None, tried


# --- keys -----------------------------------------------------------------------------------

def rule_keys():
    """Every key cglint's rules read: rules/defaults.yaml's defaults and suggest lists, and the
    environment variables of the packs (env.NAME), each as env_vars.NAME and env.NAME."""
    text = open(os.path.join(REPO, "rules/defaults.yaml"), encoding="utf-8").read()
    keys = []
    for m in re.finditer(r"^\s*-\s*\{\s*key:\s*([\w.]+)", text, re.M):
        keys.append(m.group(1))
    sug = text.split("\nsuggest:", 1)[1] if "\nsuggest:" in text else ""
    for m in re.finditer(r"^\s*-\s*([\w.]+)\s*$", sug, re.M):
        keys.append(m.group(1))
    env = set()
    rules = os.path.join(REPO, "rules")
    for n in sorted(os.listdir(rules)):
        if n.endswith(".yaml"):
            env |= set(re.findall(r"\benv\.([A-Z][A-Z0-9_]*)", open(os.path.join(rules, n), encoding="utf-8").read()))
    keys = [k for k in keys if not k.startswith("env.")]
    for e in sorted(env):
        keys += [f"env_vars.{e}", f"env.{e}"]
    return list(dict.fromkeys(keys))


# --- truth ----------------------------------------------------------------------------------

def tree_hash(root, mcore, python, keys):
    h = hashlib.sha256()
    for folder in FOLDERS:
        for d, dirs, names in os.walk(os.path.join(root, folder)):
            dirs.sort()
            for n in sorted(names):
                if n.endswith(".py"):
                    p = os.path.join(d, n)
                    h.update(os.path.relpath(p, root).encode())
                    h.update(open(p, "rb").read())
    for p in (os.path.join(mcore, "megatron/core/transformer/transformer_config.py"),
              os.path.join(root, "src/megatron/bridge/training/config.py"), EXEC):
        h.update(open(p, "rb").read())
    h.update(json.dumps([keys, os.path.realpath(python), os.environ.get("CGLINT_TRUTH_TE_VERSION"),
                         os.environ.get("CGLINT_TRUTH_TORCH_VERSION")]).encode())
    return h.hexdigest()[:20]


def run_exec(root, mcore, python, keys, cache, refresh, verbose):
    os.makedirs(cache, exist_ok=True)
    path = os.path.join(cache, f"truth-{tree_hash(root, mcore, python, keys)}.json")
    if os.path.isfile(path) and not refresh:
        print(f"truth: cached {path}")
        return json.load(open(path))
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR",
                                                       "CGLINT_TRUTH_TE_VERSION", "CGLINT_TRUTH_TORCH_VERSION",
                                                       "HF_HOME", "HF_HUB_CACHE")}
    env["HF_HUB_OFFLINE"] = "1"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    with tempfile.TemporaryDirectory(prefix="cglint-truth.") as tmp:
        procs = []
        for i in range(SHARDS):
            out = os.path.join(tmp, f"shard{i}.json")
            log = open(os.path.join(tmp, f"shard{i}.log"), "w")
            cmd = [python, EXEC, "--bridge", root, "--mcore", mcore, "--keys", ",".join(keys),
                   "--out", out, "--shard", f"{i}/{SHARDS}"]
            procs.append((subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env), out, log))
        docs = []
        for p, out, log in procs:
            try:
                p.wait(timeout=EXEC_TIMEOUT)
            except subprocess.TimeoutExpired:
                for q, _, _ in procs:
                    q.kill()
                sys.exit(f"bridge_exec.py ran over {EXEC_TIMEOUT} s")
            log.close()
            if not os.path.isfile(out):
                sys.exit(f"bridge_exec.py failed (exit {p.returncode}):\n"
                         + open(log.name).read()[-3000:])
            d = json.load(open(out))
            if "fatal" in d:
                sys.exit("bridge_exec.py could not import Bridge:\n" + d["fatal"][-3000:])
            docs.append(d)
    doc = docs[0]
    for d in docs[1:]:
        doc["functions"] += d["functions"]
        doc["import_errors"] += d["import_errors"]
        doc["stand_ins"] = sorted(set(doc["stand_ins"]) | set(d["stand_ins"]))
        doc["seconds"] = max(doc["seconds"], d["seconds"])
    doc["functions"].sort(key=lambda f: (f["path"], f["line"]))
    with open(path + ".tmp", "w") as f:
        json.dump(doc, f, indent=1)
    os.replace(path + ".tmp", path)
    print(f"truth: executed in {doc['seconds']} s (torch {doc.get('torch')}), cached {path}")
    return doc


# --- facts ----------------------------------------------------------------------------------

def run_facts(cglint, root, mcore):
    """cglint facts as a Bridge user runs it: Megatron Core importable (here through --python-path,
    as an installed megatron-core would be on the environment's sys.path)."""
    folders = [os.path.join(root, f) for f in FOLDERS if os.path.isdir(os.path.join(root, f))]
    env = dict(os.environ, CGLINT_PYTHON="none", PYTHONPATH="")
    p = subprocess.run([cglint, "facts", "--isolated", "--python-path", mcore, "--format", "json", *folders],
                       capture_output=True, text=True, env=env)
    if p.returncode not in (0, 1):
        sys.exit(f"cglint facts exited {p.returncode}: {p.stderr.strip()[-2000:]}")
    try:
        return json.loads(p.stdout)
    except ValueError:
        sys.exit(f"cglint facts printed no JSON: {p.stdout[:500]} {p.stderr[-1000:]}")


def rel_path(p, root):
    rp = os.path.realpath(p if os.path.isabs(p) else os.path.join(root, p))
    return os.path.relpath(rp, os.path.realpath(root))


def same(truth, value):
    """Bridge's value and cglint's, in the spelling the facts use."""
    if isinstance(truth, dict) and "__section__" in truth:
        # a section object (comm_overlap: CommOverlapConfig(...)): cglint holds it as present
        return value is not None and value is not False
    if isinstance(truth, bool) or isinstance(value, bool):
        return type(truth) is type(value) and truth == value
    if isinstance(truth, (int, float)) and isinstance(value, (int, float)):
        return truth == value
    if isinstance(truth, list) and isinstance(value, list):
        return len(truth) == len(value) and all(same(a, b) for a, b in zip(truth, value))
    if isinstance(truth, dict) and isinstance(value, dict):
        return truth.keys() == value.keys() and all(same(truth[k], value[k]) for k in truth)
    return truth == value


def cause_group(why):
    """A cause without its particulars (quoted names, numbers), to group unknowns."""
    g = re.sub(r"'[^']*'", "'…'", why)
    g = re.sub(r'"[^"]*"', '"…"', g)
    g = re.sub(r"\b\d+\b", "N", g)
    return g


def compare(truth, facts, root):
    units = {}
    for u in facts.get("units", []):
        units.setdefault((rel_path(u["path"], root), u.get("function")), u)
    rows = []
    fn_rows = []
    for f in truth["functions"]:
        key = (f["path"], f["function"])
        unit = units.get(key)
        fr = {"path": f["path"], "function": f["function"], "line": f["line"], "status": f["status"],
              "unit": unit is not None}
        fn_rows.append(fr)
        if f["status"] != "accepted":
            fr["error"] = f.get("error")
            fr["stage"] = f.get("stage")
            continue
        held = {k["key"]: k for k in (unit or {}).get("keys", [])}
        for k, t in f["truth"].items():
            r = {"path": f["path"], "function": f["function"], "key": k}
            if "unknowable" in t:
                r.update(verdict="not-knowable", why=t["unknowable"], values=t.get("values"))
            elif "missing" in t:
                r.update(verdict="no-field")
            elif "standin" in t:
                r.update(verdict="stand-in", why=t["standin"])
            elif unit is None:
                r.update(verdict="no-unit", truth=t["value"])
            else:
                r["truth"] = t["value"]
                h = held.get(k)
                if h is None and absent_is_null(unit, k):     # cglint reads it as not set
                    h = {"known": True, "value": None, "layer": "absent"}
                if h is None:   # a section above it may be unknown, and say why (as cglint's checks do)
                    up = next((held[a] for a in (k.rsplit(".", n)[0] for n in range(1, k.count(".") + 1))
                               if a in held and not held[a].get("known")), None)
                    why = f"{'.'.join(k.split('.')[:1])} section: {up.get('why')}" if up and up.get("why") else None
                    r.update(verdict="unknown", why=why or "not mentioned")
                elif not h.get("known"):
                    r.update(verdict="unknown", why=h.get("why") or "no why", layer=h.get("layer"), at=h.get("at"))
                else:
                    held_value = {"__section__": "present"} if h.get("section") else h.get("value")
                    r.update(cglint=held_value, layer=h.get("layer"), at=h.get("at"))
                    r["verdict"] = "equal" if same(t["value"], held_value) else "wrong"
            rows.append(r)
    return rows, fn_rows


def absent_is_null(unit, key):
    """cglint facts says which keys no input sets read as null: all (defaults assumed), env.* once
    the environment is known, and those under a section built empty (env_vars left at dict())."""
    a = unit.get("absent_is_null") or {}
    if key.startswith("env."):
        return bool(a.get("env"))
    return bool(a.get("all")) or any(key.startswith(s + ".") for s in a.get("under", []))


def pct(n, d):
    return f"{100.0 * n / d:.1f}%" if d else "n/a"


def report(truth, rows, fn_rows, verbose, out=print):
    st = collections.Counter(f["status"] for f in fn_rows)
    acc = [f for f in fn_rows if f["status"] == "accepted"]
    out(f"functions: {len(fn_rows)} recipe functions; Bridge accepts {st['accepted']}, rejects "
        f"{st['rejected']}, {st['needs-arguments']} need arguments; {sum(f['unit'] for f in acc)} of the "
        f"accepted have a cglint unit")
    rej = collections.Counter()
    for f in fn_rows:
        if f["status"] == "rejected":
            e = f.get("error") or ""
            if "StandInError" in e and "Hugging Face" in e:
                e = "needs a Hugging Face config (AutoBridge.from_hf_pretrained; none on this machine)"
            rej[f"[{f.get('stage')}] {cause_group(e)[:150]}"] += 1
    for c, n in rej.most_common(None if verbose else 12):
        out(f"  rejected {n:4d}  {c}")
    v = collections.Counter(r["verdict"] for r in rows)
    known = v["equal"] + v["unknown"] + v["wrong"] + v["no-unit"]
    out(f"values:    {known} known values in the accepted functions: equal {v['equal']} ({pct(v['equal'], known)}), "
        f"unknown {v['unknown']} ({pct(v['unknown'], known)}), wrong {v['wrong']} ({pct(v['wrong'], known)}), "
        f"in functions without a unit {v['no-unit']} ({pct(v['no-unit'], known)})")
    out(f"           not knowable (run-time: data-parallel size, launching environment, the machine): {v['not-knowable']}; "
        f"no such field in the config: {v['no-field']}; from a stand-in: {v['stand-in']}")
    nk = collections.Counter((r["key"], r["why"]) for r in rows if r["verdict"] == "not-knowable")
    for (k, why), n in nk.most_common():
        out(f"  not knowable {n:4d}  {k}: {why}")
    causes = collections.Counter(cause_group(r["why"]) for r in rows if r["verdict"] == "unknown")
    if causes:
        out(f"causes of unknown ({len(causes)} kinds):")
        for c, n in causes.most_common(None if verbose else 15):
            out(f"  {n:5d} {pct(n, v['unknown']):>6}  {c}")
    byk = collections.Counter(r["key"] for r in rows if r["verdict"] == "unknown")
    if verbose and byk:
        out("unknown by key:")
        for k, n in byk.most_common():
            out(f"  {n:5d}  {k}")
    wrong = [r for r in rows if r["verdict"] == "wrong"]
    if wrong:
        out(f"wrong values ({len(wrong)}):")
        for r in wrong:
            out(f"  {r['path']}:{r['function']}: {r['key']}: Bridge {json.dumps(r['truth'])}, cglint "
                f"{json.dumps(r['cglint'])} ({r.get('layer')}, at {r.get('at')})")
    if verbose:
        out(f"stand-ins used: {', '.join(truth.get('stand_ins', []))}")
    return v, known


def judge(v, known, args):
    problems = []
    eq = 100.0 * v["equal"] / known if known else 0.0
    if args.min_equal is not None and eq < args.min_equal:
        problems.append(f"equal {eq:.1f}% < --min-equal {args.min_equal}")
    if args.max_wrong is not None and v["wrong"] > args.max_wrong:
        problems.append(f"wrong {v['wrong']} > --max-wrong {args.max_wrong}")
    return problems


# --- self-test ------------------------------------------------------------------------------

def self_test(truth=None, facts=None, root=None):
    """The comparison must be able to fail."""
    ok = True
    t = {"functions": [
        {"path": "r.py", "function": "a", "line": 1, "status": "accepted", "truth": {
            "model.cuda_graph_impl": {"value": "full_iteration"}, "rng.te_rng_tracker": {"value": True},
            "model.cuda_graph_scope": {"value": None}, "ddp.overlap_grad_reduce": {"unknowable": "dp"},
            "model.cuda_graph_modules": {"value": ["attn", "mlp"]}, "comm_overlap": {"value": {"__section__": "C"}},
            "env.NCCL_GRAPH_REGISTER": {"value": None}}},
        {"path": "r.py", "function": "b", "line": 9, "status": "rejected", "error": "x"}]}
    f = {"units": [{"path": "/t/r.py", "function": "a", "keys": [
        {"key": "model.cuda_graph_impl", "known": True, "value": "local"},           # wrong
        {"key": "rng.te_rng_tracker", "known": True, "value": 1},                    # wrong: 1 is not true
        {"key": "model.cuda_graph_scope", "known": False, "why": "set from parameter 'x'"},
        {"key": "model.cuda_graph_modules", "known": True, "value": ["attn", "mlp"]},
        {"key": "comm_overlap", "known": True, "section": True},
        {"key": "ddp.overlap_grad_reduce", "known": True, "value": True}]}]}
    rows, fns = compare(t, f, "/t")
    v = collections.Counter(r["verdict"] for r in rows)
    want = {"wrong": 2, "equal": 2, "unknown": 2, "not-knowable": 1}
    if {k: v[k] for k in want} != want:
        print(f"self-test FAIL: synthetic verdicts {dict(v)}, want {want}")
        ok = False
    a = argparse.Namespace(min_equal=None, max_wrong=0)
    if not judge(v, 6, a):
        print("self-test FAIL: two wrong values pass --max-wrong 0")
        ok = False
    if judge(v, 6, argparse.Namespace(min_equal=30, max_wrong=2)):
        print("self-test FAIL: 2 wrong, 33% equal fail --max-wrong 2 --min-equal 30")
        ok = False
    if not judge(v, 6, argparse.Namespace(min_equal=34, max_wrong=None)):
        print("self-test FAIL: 33% equal passes --min-equal 34")
        ok = False
    if truth is not None and facts is not None:
        rows, _ = compare(truth, facts, root)
        base = collections.Counter(r["verdict"] for r in rows)
        eq = next((r for r in rows if r["verdict"] == "equal"), None)
        if eq is None:
            print("self-test: no equal value in the real comparison to doctor")
        else:
            doctored = copy.deepcopy(facts)
            for u in doctored["units"]:
                if rel_path(u["path"], root) == eq["path"] and u.get("function") == eq["function"]:
                    for k in u["keys"]:
                        if k["key"] == eq["key"]:
                            k["value"] = "__doctored__" if not isinstance(k.get("value"), str) else k["value"] + "x"
            rows2, _ = compare(truth, doctored, root)
            v2 = collections.Counter(r["verdict"] for r in rows2)
            if v2["wrong"] != base["wrong"] + 1 or v2["equal"] != base["equal"] - 1:
                print(f"self-test FAIL: doctoring {eq['function']} {eq['key']} gave wrong {base['wrong']} -> {v2['wrong']}")
                ok = False
            elif not judge(v2, 1, argparse.Namespace(min_equal=None, max_wrong=base["wrong"])):
                print("self-test FAIL: the doctored facts pass --max-wrong at the real count")
                ok = False
            else:
                print(f"self-test: real facts with {eq['function']} {eq['key']} doctored: wrong "
                      f"{base['wrong']} -> {v2['wrong']}, fails --max-wrong {base['wrong']}")
    print("self-test: " + ("OK" if ok else "FAILED"))
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cglint")
    ap.add_argument("tree", nargs="?")
    ap.add_argument("--min-equal", type=float)
    ap.add_argument("--max-wrong", type=int)
    ap.add_argument("--json")
    ap.add_argument("--facts")
    ap.add_argument("--cache", default=os.environ.get("CGLINT_TRUTH_CACHE") or
                    os.path.join(tempfile.gettempdir(), "cglint-bridge-truth"))
    ap.add_argument("--refresh", action="store_true")
    ap.add_argument("--self-test", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()

    root, tried = find_tree(args.tree)
    mcore, mtried = find_mcore()
    python, ptried = find_python()
    missing = []
    if not root:
        missing.append("a Megatron-Bridge v0.6.0 checkout (CGLINT_BRIDGE_TREE); looked in: " + ", ".join(tried))
    if not mcore:
        missing.append("Megatron-LM's megatron/ package (CGLINT_MCORE_TREE); looked in: " + ", ".join(mtried))
    if not python:
        missing.append("a Python that imports torch (CGLINT_TORCH_PYTHON); tried: " + ", ".join(ptried))
    if missing:
        if args.self_test:
            return 0 if self_test() else 1
        for m in missing:
            print("SKIPPED: missing " + m)
        return SKIP
    keys = rule_keys()
    print(f"tree:  {root}; MCore {mcore}; python {python}; {len(keys)} keys")
    truth = run_exec(root, mcore, python, keys, args.cache, args.refresh, args.verbose)
    facts = json.load(open(args.facts)) if args.facts else run_facts(args.cglint, root, mcore)
    if args.self_test:
        return 0 if self_test(truth, facts, root) else 1
    rows, fn_rows = compare(truth, facts, root)
    v, known = report(truth, rows, fn_rows, args.verbose)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"version": 1, "tree": root, "keys": keys, "stand_ins": truth.get("stand_ins"),
                       "figures": dict(v), "functions": fn_rows, "values": rows}, f, indent=1)
    problems = judge(v, known, args)
    for p in problems:
        print("FAIL " + p)
    print("bridge_truth: " + ("FAILED" if problems else "OK"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
