#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""cglint over a real Megatron-Bridge v0.6.0 checkout: its recipes and perf recipes.

usage: bridge_recipes.py CGLINT [TREE] [-v]

TREE is a Megatron-Bridge v0.6.0 checkout (the repository root, or its src/); default: the
environment variable CGLINT_BRIDGE_TREE, else the first of PLACES that holds
src/megatron/bridge/recipes. Without one the test is skipped: exit 77, which ctest reports as
"Skipped" (SKIP_RETURN_CODE), with the places it looked at.

Checks, on src/megatron/bridge/recipes and perf_recipes (one cglint process each target):
  1. exit status 0 or 1 on every target in TARGETS (never 2 or 3), no input error (CG9xx), and
     one CG922 on a target of another Bridge release than the tree's;
  2. units: an extra rule pack (UNIT1, a note that fires once per unit) names every unit. Every
     .py file that sets a CUDA-graph key (found independently here with Python's own ast) gives
     at least one unit (a key in a module-level constant only, such as a dict of environment
     defaults, is no recipe and is listed instead), and every function whose body sets one in a straight-line statement
     (`cfg.model.cuda_graph_impl = ...`, `cfg.rng.te_rng_tracker = cfg.model.use_te_rng_tracker
     = ...`, `cfg.env_vars = {"NCCL_GRAPH_REGISTER": ...}`) is a unit, except a private ('_')
     function another function of its file calls (a building block, judged through its callers);
  3. EXPECT: findings the real validation gives on these recipes (counted, at least MIN), and
     no error on the release's own target (Bridge 0.6 / MCore 0.19 accepts its own recipes),
     but from the rules that mirror failures no check stops (rules/failures.yaml), which must
     give exactly the findings KNOWN_FAILURES lists (docs/failures.md, "On real trees").
"""

import ast
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

SKIP = 77
PLACES = ["/tmp/mb6", "../Megatron-Bridge", "../../Megatron-Bridge", "/work/Megatron-Bridge",
          "/opt/Megatron-Bridge", os.path.expanduser("~/Megatron-Bridge")]
FOLDERS = ["src/megatron/bridge/recipes", "src/megatron/bridge/perf_recipes"]

TARGETS = [
    [],                                         # 0.19 with Bridge 0.6: the release itself
    ["--mcore", "0.19", "--bridge", "0.5"],
    ["--mcore", "0.18"],
    ["--mcore", "0.17"],
    ["--mcore", "dev"],
    ["--mcore", "0.19", "--gpu", "h100"],
    ["--mcore", "0.19", "--gpu", "b200"],
    ["--mcore", "0.19", "--assume-defaults"],
]

# (target, file under src/megatron/bridge, rule, severity, at least this many)
EXPECT = [
    # the h100 llama3 recipes write cuda_graph_scope = "full", deprecated on MCore 0.19
    # without Bridge 0.6's clean-up (which turns it into [] before MCore sees it)
    (["--mcore", "0.19", "--bridge", "0.5"], "recipes/llama/h100/llama3.py", "CG129", "warning", 1),
    (["--mcore", "0.18"], "recipes/llama/h100/llama3.py", "CG129", "warning", 1),
    # scope is deprecated from 0.18 in favour of cuda_graph_modules
    (["--mcore", "0.19", "--bridge", "0.5"], "recipes/llama/h100/llama3.py", "CG132", "note", 1),
]
# targets on which the release's own recipes must give no error, and no warning but those MCore
# prints itself (a UserWarning: external_cuda_graph, enable_cuda_graph, the "full" scope). The
# spellings accepted and converted in silence (cuda_graph_scope and the full_iteration modules, a
# DeprecationWarning Python hides) are notes (issue 30 item 7).
NO_ERRORS_ON = [[]]
WARNED_BY_MCORE = {"CG124", "CG125", "CG129"}
# What the failure rules find on the release's own recipes, on its own target: rule, severity,
# file -> how many. CG176: Llama 3 70B on 64 B200s with local full-iteration graphs and the
# parameter gather overlapped with the optimizer step (Megatron-Bridge #1688's setup). CG149:
# perf recipes that evaluate after full-iteration training (Megatron-Bridge #5291, on main).
FAILURE_RULES = {"CG103", "CG149", "CG174", "CG175", "CG176", "CG177", "CG178", "CG179", "CG195", "CG198", "CG199"}
KNOWN_FAILURES = {("CG176", "error", "perf_recipes/llama/b200/llama3.py"): 1}
KNOWN_FAILURE_WARNINGS = {"CG149": 62}
# Keys no class of the section has (CG927), on the release's own target: settings nothing reads on
# Bridge 0.6, each read against the code (docs/fields.md). The fine-tuning recipes' scheduler.max_lr
# (the scheduler takes its peak from optimizer.lr, training/optim.py 342); the Qwen3 MoE recipes'
# moe_a2a_overlap (the field is overlap_moe_expert_parallel_comm); DeepSeek V4 provider attributes
# no release defines. No CG926: no recipe passes a constructor a keyword its class lacks.
FIELD_RULES = {"CG926", "CG927"}
KNOWN_DEAD_SETTINGS = {
    "model.apply_dsa_kernel_fusion": 14, "model.cp_partition_mode": 1, "model.csa_compress_ratios": 1,
    "model.csa_compress_rotary_base": 2, "model.moe_a2a_overlap": 36, "model.mtp_eval_in_bf16": 6,
    "model.use_fused_mhc": 14, "optimizer.offload_optimizer_states": 2, "scheduler.max_lr": 63,
    "scheduler.min_lr": 14,
}


def field_key(message):
    """The key a CG926/CG927 message names: "'x' is not a field of model in ..." -> model.x."""
    m = re.match(r"'([^']+)' is not a field of (\S+) in ", message)
    return (m.group(1) if m.group(2) == "ConfigContainer" else f"{m.group(2)}.{m.group(1)}") if m else message

UNIT_PACK = """\
pack: unit-probe
rules:
  - id: UNIT1
    name: unit-probe
    severity: note
    when: not given(model.__cglint_unit_probe__)
    message: "unit"
    doc: |
      Fires once for every unit cglint judges (tests/realtree/bridge_recipes.py counts them).
"""


def is_graph_key(name):
    """The keys that make a function a CUDA-graph recipe, as cglint's fe_py_is_graph_key."""
    return ("cuda_graph" in name or "rng_tracker" in name or
            name in ("NCCL_GRAPH_REGISTER", "PYTORCH_CUDA_ALLOC_CONF"))


def leaf(node):
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
        return node.slice.value
    return None


def sets_graph_key(node):
    """Anywhere under NODE (a function, or a module): an assignment to a graph key, a keyword or dict key naming one."""
    for n in ast.walk(node):
        if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            if any(leaf(t) and is_graph_key(leaf(t)) for t in targets):
                return True
        if isinstance(n, ast.keyword) and n.arg and is_graph_key(n.arg):
            return True
        if isinstance(n, ast.Dict) and any(isinstance(k, ast.Constant) and isinstance(k.value, str)
                                           and is_graph_key(k.value) for k in n.keys):
            return True
    return False


def straight_line_graph_key(fn):
    """A statement at FN's body level that assigns a graph key through an attribute chain or a
    dict whose keys name one."""
    for st in fn.body:
        if not isinstance(st, ast.Assign):
            continue
        for t in st.targets:
            if isinstance(t, ast.Attribute) and is_graph_key(t.attr):
                return True
            if isinstance(t, ast.Attribute) and t.attr == "env_vars" and isinstance(st.value, ast.Dict) and \
                    any(isinstance(k, ast.Constant) and isinstance(k.value, str) and is_graph_key(k.value)
                        for k in st.value.keys):
                return True
    return False


def functions(tree):
    """(qualified name, node) of module-level functions and methods of classes (nested)."""
    out = []

    def walk(body, owner):
        for d in body:
            if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out.append((f"{owner}.{d.name}" if owner else d.name, d))
            elif isinstance(d, ast.ClassDef):
                walk(d.body, f"{owner}.{d.name}" if owner else d.name)
    walk(tree.body, "")
    return out


def find_tree(arg):
    tried = []
    for p in ([arg] if arg else []) + ([os.environ["CGLINT_BRIDGE_TREE"]] if os.environ.get("CGLINT_BRIDGE_TREE") else []) + PLACES:
        for root in (p, os.path.dirname(p.rstrip("/")) if p.rstrip("/").endswith("src") else None):
            if root and os.path.isdir(os.path.join(root, FOLDERS[0])):
                return root, tried
        tried.append(p)
        if p == arg or p == os.environ.get("CGLINT_BRIDGE_TREE"):
            # named explicitly: do not fall back to a guess
            return None, tried
    return None, tried


def other_release(target):
    """Whether a target is of another Bridge release than the tree's (0.6 with MCore 0.19)."""
    mcore = target[target.index("--mcore") + 1] if "--mcore" in target else "0.19"
    return "--bridge" in target or mcore != "0.19"


def run(cglint, target, folders, extra=()):
    p = subprocess.run([cglint, "--isolated", "--format", "json", *target, *extra, *folders],
                       capture_output=True, text=True)
    try:
        doc = json.loads(p.stdout)
    except ValueError:
        doc = {"diagnostics": [], "target": {}}
    return p.returncode, doc, p.stderr


def main():
    args = [a for a in sys.argv[1:] if a != "-v"]
    verbose = "-v" in sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    cglint = args[0]
    root, tried = find_tree(args[1] if len(args) > 1 else None)
    if not root:
        print("SKIPPED: no Megatron-Bridge v0.6.0 checkout (set CGLINT_BRIDGE_TREE to one); looked in: "
              + ", ".join(tried))
        return SKIP
    folders = [os.path.join(root, f) for f in FOLDERS if os.path.isdir(os.path.join(root, f))]
    base = os.path.join(root, "src/megatron/bridge")
    rel = lambda p: os.path.relpath(os.path.realpath(p), os.path.realpath(base))
    problems = []

    # --- what the files hold, read by Python's own parser --------------------------------
    files, graph_files, graph_fns, module_only = [], set(), {}, []
    for f in folders:
        for d, _, names in os.walk(f):
            files += [os.path.join(d, n) for n in names if n.endswith(".py")]
    for p in sorted(files):
        try:
            tree = ast.parse(open(p, encoding="utf-8").read(), p)
        except SyntaxError as e:
            problems.append(f"{rel(p)}: Python cannot parse it ({e}); is this a v0.6.0 checkout?")
            continue
        fns = functions(tree)
        if any(sets_graph_key(fn) for _, fn in fns):
            graph_files.add(rel(p))
        elif sets_graph_key(tree):
            module_only.append(rel(p))
        # a private function its file calls builds recipes and is judged through its callers
        called = {n.func.id for _, fn in fns for n in ast.walk(fn)
                  if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
        for name, fn in fns:
            if straight_line_graph_key(fn) and not (name.startswith("_") and name in called):
                graph_fns[(rel(p), name)] = fn.lineno
    print(f"tree:  {root} ({len(files)} .py files under {', '.join(FOLDERS)}; {len(graph_files)} set a "
          f"CUDA-graph key in a function, {len(graph_fns)} functions in a straight-line statement)")
    if module_only:
        # e.g. recipes/utils/environment_utils.py's COMMON_RECIPE_ENV_VARS, spread into recipes'
        # env_vars as **COMMON_RECIPE_ENV_VARS: no function, so no unit (and unknown where spread)
        print(f"       not recipes, graph keys outside any function only: {', '.join(module_only)}")

    # --- units ------------------------------------------------------------------------------
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", prefix="cglint-unit-probe.") as pack:
        pack.write(UNIT_PACK)
        pack.flush()
        rc, doc, err = run(cglint, [], folders, ["--rules", pack.name])
    units = collections.defaultdict(set)
    for d in doc["diagnostics"]:
        if d["rule"] == "UNIT1":
            units[rel(d["path"])].add(d["message"].rsplit("(in ", 1)[1].rstrip(")"))
    n_units = sum(len(v) for v in units.values())
    print(f"units: {n_units} in {len(units)} files")
    if rc not in (0, 1):
        problems.append(f"cglint with the unit-probe pack exited {rc}: {err.strip()[-500:]}")
    for f in sorted(graph_files - set(units)):
        problems.append(f"{f}: sets a CUDA-graph key but cglint judged no unit in it")
    # a file whose functions set their keys only through a followed helper or base recipe is a
    # unit without a key of its own: not a fault since cglint follows calls
    for f in sorted(set(units) - graph_files):
        print(f"note: {f}: units whose CUDA-graph keys come from followed calls")
    for (f, name), line in sorted(graph_fns.items()):
        if name not in units.get(f, ()):
            problems.append(f"{f}:{line}: {name} sets a CUDA-graph key in a straight-line statement "
                            "but is no unit")
    # functions cglint judged whose graph keys sit only under if/for/with or in calls
    extra = sorted((f, n) for f, ns in units.items() for n in ns if (f, n) not in graph_fns)
    print(f"       {len(extra)} more units set their keys otherwise (keyword constructors, dicts, "
          f"subscripts){': ' + ', '.join(f'{f}:{n}' for f, n in extra[:5]) + ' ...' if verbose and extra else ''}")

    # --- each target: exit status, input errors, what it found ----------------------------------
    found = {}
    for target in TARGETS:
        ts = " ".join(target) or "(default: --mcore 0.19 --bridge 0.6)"
        rc, doc, err = run(cglint, target, folders)
        diags = doc["diagnostics"]
        # 2 where the only input errors are keyword arguments an older release's classes lack
        # (CG926: the tree is 0.6, the target another release)
        fields_only = all(d["rule"] == "CG926" for d in diags if d["severity"] == "error" and d["rule"].startswith("CG9"))
        if rc not in (0, 1) and not (rc == 2 and fields_only and other_release(target)):
            problems.append(f"[{ts}] cglint exited {rc} (2: usage or input error, 3: internal): "
                            f"{err.strip()[-500:]}")
        # the tree is Bridge 0.6: a target of another release is warned about once (CG922)
        n922 = sum(d["rule"] == "CG922" for d in diags)
        if n922 != (1 if other_release(target) else 0):
            problems.append(f"[{ts}] {n922} CG922 (the tree's Bridge release against the target's), "
                            f"wanted {1 if other_release(target) else 0}")
        for d in diags:
            if d["rule"].startswith("CG9") and d["rule"] != "CG922" and d["rule"] not in FIELD_RULES:
                problems.append(f"[{ts}] {rel(d['path'])}:{d['line']}: input error {d['rule']}: {d['message']}")
        c = collections.Counter((d["rule"], d["severity"]) for d in diags)
        nf = len({d["path"] for d in diags})
        print(f"[{ts}] exit {rc}: {len(diags)} findings in {nf} files: "
              + (" ".join(f"{r}({s[0]})x{n}" for (r, s), n in sorted(c.items())) or "none"))
        found[" ".join(target)] = diags
        if target in NO_ERRORS_ON:
            known = collections.Counter((d["rule"], d["severity"], rel(d["path"])) for d in diags
                                        if d["rule"] in FAILURE_RULES and d["severity"] == "error")
            if dict(known) != KNOWN_FAILURES:
                problems.append(f"[{ts}] the failure rules' errors on the release's own recipes: {dict(known)}, "
                                f"wanted {KNOWN_FAILURES}")
            warned = collections.Counter(d["rule"] for d in diags if d["rule"] in FAILURE_RULES and d["severity"] == "warning")
            if dict(warned) != KNOWN_FAILURE_WARNINGS:
                problems.append(f"[{ts}] the failure rules' warnings on the release's own recipes: {dict(warned)}, "
                                f"wanted {KNOWN_FAILURE_WARNINGS}")
            dead = collections.Counter(field_key(d["message"]) for d in diags if d["rule"] in FIELD_RULES)
            if dict(dead) != KNOWN_DEAD_SETTINGS or any(d["rule"] == "CG926" for d in diags):
                problems.append(f"[{ts}] keys the release's own recipes set that no class has: {dict(dead)}, "
                                f"wanted {KNOWN_DEAD_SETTINGS} (CG927 alone)")
            for d in diags:
                if d["rule"] in FAILURE_RULES or d["rule"] in FIELD_RULES:
                    continue
                if d["severity"] == "error" or (d["severity"] == "warning" and d["rule"] not in WARNED_BY_MCORE):
                    problems.append(f"[{ts}] the release's own recipe gives {'an' if d['severity'] == 'error' else 'a'} {d['severity']}: "
                                    f"{rel(d['path'])}:{d['line']}: {d['rule']} {d['message']}")
    for target, f, rule, sev, least in EXPECT:
        ts = " ".join(target)
        if ts not in found:
            found[ts] = run(cglint, target, folders)[1]["diagnostics"]
        n = sum(1 for d in found[ts] if rel(d["path"]) == f and d["rule"] == rule and d["severity"] == sev)
        print(f"expect [{ts}] {f}: {sev} {rule} at least {least}: {n}")
        if n < least:
            problems.append(f"[{ts}] {f}: expected at least {least} {sev} {rule}, got {n}")

    for p in problems:
        print("FAIL " + p)
    if problems:
        print(f"bridge_recipes: FAILED, {len(problems)} problems")
        return 1
    print("bridge_recipes: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
