#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Ground truth for cglint's development targets: upstream main's own validation, executed.

usage: main_truth.py CGLINT [--trees DIR] [--release [--baseline-cglint CGLINT0]] [--json FILE] [-v]
                     [--self-test]

The corpus, tests/realtree/main_corpus/*.yaml, is one small config per check that the development
branches added (issue 40; /tmp/i40/changes.md's B1-B5 for Megatron-Bridge main, M1, M2, M6, M7
for Megatron Core), a file that upstream should reject and a near miss it should accept. Each
file's first lines say what it is:
  # truth: change=B1 expect=reject [dataset=energon|sft] [model=qwen3vl] [stand_in=deepgemm]
         [front=mlm] [expect@pin=...] [values=KEY,KEY] [world_size=N] [warn=RULE warned=yes|no
         warned@pin=yes|no]
front=mlm marks a Megatron-LM functional-test model_config.yaml (MODEL_ARGS, ENV_VARS); the
others are Megatron-Bridge YAML overrides.

tests/realtree/main_exec.py (run under a Python with torch) executes upstream on every file, on
each target:
  bridge-main   Megatron-Bridge main 067f987df0 with the Megatron Core it pins (2a75ac12):
                runtime_config_update() / ConfigContainer.validate() (model.finalize() included),
                then the later checks by direct calls. cglint --bridge main --assume-defaults.
  mlm-main      Megatron-LM main d98e8a64dd: parse_args, validate_args,
                core_transformer_config_from_args, get_megatron_ddp_config, then the direct
                calls. cglint --mcore main --bridge none.
  mlm-pin       the same on Megatron-LM 2a75ac12 (what a Bridge main user runs). cglint
                --mcore main@2a75ac12 --bridge none.
and with --release also (informational: the release verdicts must not have moved)
  bridge-0.6    Megatron-Bridge v0.6.0 with Megatron Core core_v0.19.0. cglint --bridge 0.6 --assume-defaults.
  mlm-0.19      Megatron-LM core_v0.19.0. cglint --mcore 0.19 --bridge none.
  --baseline-cglint CGLINT0 (a cglint built before the main targets) is run on these too, and a
  release row whose errors differ between CGLINT0 and CGLINT is listed as moved.

Then `CGLINT <target args> --format json FILE` on the same file, compared:
  upstream rejects: cglint must report an error whose message equals upstream's message;
  upstream accepts: cglint must report no error;
  values=KEY,...: the values upstream holds after validation (Energon packing clearing EP overlap
    and delayed wgrad, B4) must equal `CGLINT facts` (same target arguments) for those keys;
  warn=RULE: upstream gives the warning RULE mirrors (WARN_TEXT) exactly when cglint gives RULE.
On the main targets, upstream's verdict must also be the one the header expects (expect=, or
expect@pin= on mlm-pin; warned=, warned@pin= for the warning of warn=): a corpus file that no longer reaches its check is a failure too.
Every other key that cglint's main rules read (rules/main.yaml, and the Energon step of
rules/steps-bridge-setup.yaml) is recorded after validation and compared with the facts where
cglint knows it; differences are listed, not counted against the run.

Trees: --trees DIR (default $CGLINT_MAIN_TREES, else /tmp/main-trees) holding bridge-main/,
mcore-pin/, mcore-main/ (and bridge-0.6/, mcore-0.19/ for --release), each overridden by
$CGLINT_BRIDGE_MAIN_TREE, $CGLINT_MCORE_PIN_TREE, $CGLINT_MCORE_MAIN_TREE ($CGLINT_BRIDGE_TREE,
$CGLINT_MCORE_TREE for the releases, as bridge_truth.py names them). Made from the bare mirrors by
  git --git-dir=Megatron-Bridge archive main src | tar -x -C DIR/bridge-main
  git --git-dir=Megatron-LM archive 2a75ac12 megatron | tar -x -C DIR/mcore-pin
  git --git-dir=Megatron-LM archive main megatron | tar -x -C DIR/mcore-main
  (v0.6.0 src -> DIR/bridge-0.6, core_v0.19.0 megatron -> DIR/mcore-0.19)
Each tree is checked for a line only that commit has (MARKERS). The Python: $CGLINT_TORCH_PYTHON,
else /usr/bin/python3 or python3 if it imports torch. A missing tree or Python: exit 77 (ctest:
skipped), naming what was looked for; a tree of the wrong commit: exit 2.

Rows listed in KNOWN (a difference whose fix belongs in lint/ or rules/, with the reading of why)
print as XFAIL and do not fail the run; such a row that comes out equal prints XPASS and fails it.

Exit: 0 every main-target row equal (or a known difference) and as expected, 1 otherwise.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
CORPUS = os.path.join(HERE, "main_corpus")
EXEC = os.path.join(HERE, "main_exec.py")
SKIP = 77
EXEC_TIMEOUT = 200

sys.path.insert(0, HERE)
from bridge_truth import find_python   # noqa: E402  (the same Python rule as bridge-v0.6-truth)
from main_exec import read_header      # noqa: E402  (the corpus header, as main_exec reads it)

# name -> (env variable, folder under --trees, file that must exist, [(file, text that must / must
# not be in it)]): a line that only that commit has, so that a tree of another commit is refused
TREES = {
    "bridge-main": ("CGLINT_BRIDGE_MAIN_TREE", "bridge-main", "src/megatron/bridge/training/config.py",
                    [("src/megatron/bridge/training/config.py", "def _validate_and_apply_megatron_fsdp_v2_configs", True),
                     ("src/megatron/bridge/training/gpt_step.py", "def _validate_packed_moe_cuda_graph", True)]),
    "mcore-pin": ("CGLINT_MCORE_PIN_TREE", "mcore-pin", "megatron/core/transformer/transformer_config.py",
                  [("megatron/core/optimizer/fully_sharded_optimizer.py",
                    "MFSDP v2 does not currently support optimizer CUDA graphs.", True),
                   ("megatron/training/arguments.py", "--megatron-fsdp-version", True)]),
    "mcore-main": ("CGLINT_MCORE_MAIN_TREE", "mcore-main", "megatron/core/transformer/transformer_config.py",
                   [("megatron/core/optimizer/fully_sharded_optimizer.py",
                     "MFSDP v2 does not currently support optimizer CUDA graphs.", False),
                    ("megatron/core/transformer/cuda_graphs.py", "def _get_cuda_graph_stream", True)]),
    "bridge-0.6": ("CGLINT_BRIDGE_TREE", "bridge-0.6", "src/megatron/bridge/training/config.py",
                   [("src/megatron/bridge/training/config.py", "def _validate_and_apply_megatron_fsdp_v2_configs", False),
                    ("src/megatron/bridge/training/config.py", "def runtime_config_update", True)]),
    "mcore-0.19": ("CGLINT_MCORE_TREE", "mcore-0.19", "megatron/core/transformer/transformer_config.py",
                   [("megatron/core/transformer/transformer_config.py", "moe_ncclep_static_shape: bool = False", True),
                    ("megatron/training/arguments.py", "def validate_args", True)]),
}

# target -> (front, tree, mcore tree for Bridge, cglint arguments, release?)
TARGETS = {
    "bridge-main": ("bridge", "bridge-main", "mcore-pin", ["--bridge", "main", "--assume-defaults"], False),
    "mlm-main": ("mlm", "mcore-main", None, ["--mcore", "main", "--bridge", "none"], False),
    "mlm-pin": ("mlm", "mcore-pin", None, ["--mcore", "main@2a75ac12", "--bridge", "none"], False),
    "bridge-0.6": ("bridge", "bridge-0.6", "mcore-0.19", ["--bridge", "0.6", "--assume-defaults"], True),
    "mlm-0.19": ("mlm", "mcore-0.19", None, ["--mcore", "0.19", "--bridge", "none"], True),
}


# --- places ------------------------------------------------------------------------------------

def find_trees(trees_dir, names):
    """{name: path}, [what is missing], [what is of the wrong commit]."""
    found, missing, wrong = {}, [], []
    for name in names:
        env, sub, must, markers = TREES[name]
        p = os.environ.get(env) or (os.path.join(trees_dir, sub) if trees_dir else None)
        if not p or not os.path.isfile(os.path.join(p, must)):
            missing.append(f"{name} (${env}, or {sub}/ under --trees; looked at {p or 'nothing'})")
            continue
        for rel, text, present in markers:
            f = os.path.join(p, rel)
            has = os.path.isfile(f) and text in open(f, encoding="utf-8", errors="replace").read()
            if has != present:
                wrong.append(f"{name} at {p}: {rel} {'lacks' if present else 'has'} {text!r}")
        found[name] = os.path.realpath(p)
    return found, missing, wrong


# --- corpus and keys ---------------------------------------------------------------------------

def header_of(path):
    """A corpus file's `# truth:` options, read as the executing side reads them."""
    with open(path, encoding="utf-8") as f:
        return read_header(f.read())


def corpus():
    files = sorted(os.path.join(CORPUS, n) for n in os.listdir(CORPUS) if n.endswith(".yaml"))
    return [(f, header_of(f)) for f in files]


KEY_RE = re.compile(r"\b((?:model|ddp|dist|optimizer|dataset|comm_overlap|rng|args)\.[A-Za-z][\w]*(?:\.[A-Za-z][\w]*)*)")


def rule_keys():
    """The keys the main pack's conditions read, and the Energon step's (rules/main.yaml,
    rules/steps-bridge-setup.yaml BR-energon-packing-overlap*)."""
    keys = []
    text = open(os.path.join(REPO, "rules/main.yaml"), encoding="utf-8").read()
    for m in re.finditer(r"^\s+when: >-?\n((?:\s{6,}.*\n)+)|^\s+when: (.*)$", text, re.M):
        keys += KEY_RE.findall(m.group(1) or m.group(2) or "")
    steps = open(os.path.join(REPO, "rules/steps-bridge-setup.yaml"), encoding="utf-8").read()
    for m in re.finditer(r"- id: BR-energon-packing-overlap.*?(?=\n  - id: |\n\n|\Z)", steps, re.S):
        keys += KEY_RE.findall(m.group(0))
    return list(dict.fromkeys(keys))


# --- upstream ----------------------------------------------------------------------------------

def run_upstream(python, trees, targets, files, keys, verbose):
    """main_exec.py once per target, side by side: {target: {file: record}}."""
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["HF_HUB_OFFLINE"] = "1"
    out = {}
    with tempfile.TemporaryDirectory(prefix="cglint-main-truth.") as tmp:
        procs = []
        for t in targets:
            front, tree, mcore, _, _ = TARGETS[t]
            fl = [f for f, h in files if (h.get("front", "bridge") == front)]
            if not fl:
                continue
            o = os.path.join(tmp, f"{t}.json")
            log = open(os.path.join(tmp, f"{t}.log"), "w")
            cmd = [python, EXEC, "--front", front, "--tree", trees[tree], "--out", o, "--keys", ",".join(keys)]
            if mcore:
                cmd += ["--mcore", trees[mcore]]
            procs.append((t, subprocess.Popen(cmd + fl, stdout=log, stderr=subprocess.STDOUT, env=env), o, log))
        for t, p, o, log in procs:
            try:
                p.wait(timeout=EXEC_TIMEOUT)
            except subprocess.TimeoutExpired:
                for _, q, _, _ in procs:
                    q.kill()
                sys.exit(f"main_exec.py ({t}) ran over {EXEC_TIMEOUT} s")
            log.close()
            if not os.path.isfile(o):
                sys.exit(f"main_exec.py ({t}) failed (exit {p.returncode}):\n" + open(log.name).read()[-3000:])
            d = json.load(open(o))
            if "fatal" in d:
                sys.exit(f"main_exec.py ({t}) could not import upstream:\n" + d["fatal"][-3000:])
            if verbose:
                print(f"upstream {t}: torch {d.get('torch')}; stand-ins: {', '.join(d.get('stand_ins', []))}")
            out[t] = {os.path.realpath(r["file"]): r for r in d["files"]}
    return out


# --- cglint ------------------------------------------------------------------------------------

def cglint_env():
    return dict(os.environ, CGLINT_PYTHON="none", PYTHONPATH="", CGLINT_CUDA_PATH="none")


def run_cglint(cglint, args, path):
    p = subprocess.run([cglint, "--isolated", *args, "--format", "json", path], capture_output=True,
                       text=True, env=cglint_env())
    # 2: an input error (a flag the parser rejects, CG931) is still a verdict with its JSON
    if p.returncode not in (0, 1, 2):
        return None, f"cglint exited {p.returncode}: {p.stderr.strip()[-500:]}"
    try:
        return json.loads(p.stdout), None
    except ValueError:
        return None, f"cglint printed no JSON: {p.stdout[:300]} {p.stderr[-300:]}"


def run_facts(cglint, args, path):
    p = subprocess.run([cglint, "facts", "--isolated", *args, "--format", "json", path], capture_output=True,
                       text=True, env=cglint_env())
    if p.returncode not in (0, 1):
        return {}
    try:
        units = json.loads(p.stdout).get("units", [])
    except ValueError:
        return {}
    return {k["key"]: k for k in (units[0].get("keys", []) if units else [])}


def same(a, b):
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


# --- known differences -------------------------------------------------------------------------

# Rows where cglint's verdict differs from upstream's and the fix belongs in lint/ or rules/: they
# print as XFAIL with the reading below and do not fail the run; a listed row that comes out equal
# prints XPASS and fails it, so that the entry is removed with the fix. (file, target) -> reading.
KNOWN = {
    ("M9-mlm-gtp-local-graphs-unset.yaml", "mlm-main"): (
        "the job's environment is open: a variable the file does not set may be set by the shell that "
        "launches it, so cglint lists CG209 as undecided (waiting for env.CUDA_DEVICE_MAX_CONNECTIONS; "
        "-E or --env-file decides it) where upstream, run in a clean environment, warns"),
}
# the same readings for the release rows (informational)
KNOWN_RELEASE = {
    ("M6-ncclep-drop-pad.ko.yaml", "bridge-0.6"): None,
    ("M6-ncclep-dropless.ok.yaml", "bridge-0.6"): None,
    ("M6-mlm-ncclep-drop-pad.ko.yaml", "mlm-0.19"): None,
    ("M6-mlm-ncclep-dropless.ok.yaml", "mlm-0.19"): None,
}
_NCCLEP_019 = (
    "core_v0.19.0's _NCCLEPManager requires moe_expert_rank_capacity_factor for the 'ncclep' backend "
    "(token_dispatcher.py 1563-1568 at core_v0.19.0; dropped on main, change M4), a non-graph check at "
    "model build that no cglint rule mirrors, at 0.19 as before the main targets")
for k in KNOWN_RELEASE:
    KNOWN_RELEASE[k] = KNOWN_RELEASE[k] or _NCCLEP_019


# --- comparison --------------------------------------------------------------------------------

# warn=RULE in a header: the upstream warning under test, by a fragment of its text (upstream
# formats the rest from the value it found), and the cglint rule that mirrors it
WARN_TEXT = {
    "CG209": "For GTP workloads, consider setting it to 16 or 32",   # cuda_graphs.py 137-141 (main)
}

def field_key(message):
    """The key a CG926/CG927 message names: "'x' is not a field of model in ..." -> model.x."""
    m = re.match(r"'([^']+)' is not a field of (\S+) in ", message)
    return (m.group(1) if m.group(2) == "ConfigContainer" else f"{m.group(2)}.{m.group(1)}") if m else message


def expected(h, target, key="expect"):
    if TARGETS[target][4]:
        return None
    if target == "mlm-pin" and f"{key}@pin" in h:
        return h[f"{key}@pin"]
    return h.get(key)


def compare_row(cglint, target, path, h, up, keys, baseline=None):
    """One row: the file on one target."""
    args = TARGETS[target][3]
    row = {"file": os.path.relpath(path, HERE), "change": h.get("change", "?"), "target": target,
           "expect": expected(h, target), "upstream": up.get("verdict"), "stage": up.get("stage"),
           "upstream_message": up.get("message"), "upstream_type": up.get("type"), "upstream_at": up.get("at"),
           "upstream_warnings": up.get("warnings", []), "direct_calls": up.get("direct_calls", []),
           "ignored_keys": up.get("ignored_keys", []), "stand_in_notes": up.get("stand_in_notes", [])}
    doc, err = run_cglint(cglint, args, path)
    if doc is None:
        row.update(cglint="failed", equal=False, why=err)
        return row
    diags = doc.get("diagnostics", [])
    errors = [d for d in diags if d.get("severity") == "error"]
    row["cglint_errors"] = [f"{d['rule']}: {d['message']}" for d in errors]
    row["cglint_warnings"] = [f"{d['rule']}: {d['message']}" for d in diags if d.get("severity") == "warning"]
    row["cglint"] = "reject" if errors else "accept"
    v = up.get("verdict")
    if v == "reject":
        match = [d for d in errors if d.get("message") == up.get("message")]
        unrec = re.search(r"unrecognized arguments: (.*)$", up.get("message") or "")
        if not match and up.get("stage") == "parse_args" and unrec:
            # argparse's own message lists every unknown argument; cglint's CG180 (a CUDA-graph
            # flag) or CG931 names each unknown flag in a sentence of its own: the same rejection,
            # not the same text
            flags = {a for a in unrec.group(1).split() if a.startswith("--")}
            match = [d for d in errors if d.get("rule") in ("CG180", "CG931") and d["message"].split(" ")[0] in flags]
            if match:
                row["note"] = f"argparse's message (unrecognized arguments); cglint {match[0]['rule']} names the flag"
        row["equal"] = bool(match)
        row["cglint_rule"] = match[0]["rule"] if match else None
        if not row["equal"]:
            row["why"] = ("cglint reports no error" if not errors else
                          "no cglint error has upstream's message")
    elif v == "accept":
        row["equal"] = not errors
        if errors:
            row["why"] = "cglint reports an error where upstream accepts"
    else:
        row["equal"] = False
        row["why"] = f"no upstream verdict: {v}: {up.get('message')}"
    # values after validation, against cglint facts
    if v == "accept" and up.get("values"):
        facts = run_facts(cglint, args, path)
        must = [k for k in h.get("values", "").split(",") if k]
        vals = []
        for k, truth in up["values"].items():
            f = facts.get(k)
            if f is None or not f.get("known"):
                verdict = "unknown"
                cg = "(not in cglint facts)" if f is None else f"(unknown: {f.get('why')})"
            elif isinstance(truth, dict) and "__section__" in truth:
                # a section object (offline_packing_specs, comm_overlap): cglint holds it as present
                cg = "(section)" if f.get("section") else f.get("value")
                verdict = "equal" if f.get("section") or cg not in (None, False) else "wrong"
            else:
                cg = f.get("value")
                verdict = "equal" if same(truth, cg) else "wrong"
            vals.append({"key": k, "upstream": truth, "cglint": cg, "verdict": verdict, "required": k in must})
        for k in must:
            if k not in up["values"]:
                vals.append({"key": k, "upstream": "(not recorded)", "cglint": None, "verdict": "unknown",
                             "required": True})
        row["values"] = vals
        bad = [x for x in vals if x["required"] and x["verdict"] != "equal"]
        if bad:
            row["equal"] = False
            row["why"] = "values differ: " + "; ".join(
                f"{x['key']} upstream {json.dumps(x['upstream'])} cglint {json.dumps(x['cglint'])}" for x in bad)
    for rule in [x for x in h.get("warn", "").split(",") if x]:
        text = WARN_TEXT[rule]
        up_w = any(text in w for w in up.get("warnings", []))
        cg_w = any(d.get("rule") == rule for d in diags)
        row.setdefault("warn", []).append({"rule": rule, "upstream": up_w, "cglint": cg_w})
        if up_w != cg_w and v in ("accept", "reject"):
            row["equal"] = False
            row["why"] = (row.get("why", "") + "; " if row.get("why") else "") + (
                f"upstream warns ({text}…), cglint gives no {rule}" if up_w else
                f"cglint gives {rule}, upstream does not warn")
    # the keys the config lacks: Bridge's _apply_overrides skips them (main_exec.py lists them as
    # ignored_keys); cglint says each with CG927 (CG926 where a loader refuses it)
    if "ignored_keys" in up:
        cg_ign = sorted(field_key(d["message"]) for d in diags if d.get("rule") in ("CG926", "CG927"))
        up_ign = sorted(up["ignored_keys"])
        row["ignored"] = {"upstream": up_ign, "cglint": cg_ign}
        if cg_ign != up_ign:
            row["equal"] = False
            row["why"] = (row.get("why", "") + "; " if row.get("why") else "") + \
                f"keys the config lacks: upstream skips {up_ign}, cglint reports {cg_ign}"
    if baseline and TARGETS[target][4]:
        bdoc, berr = run_cglint(baseline, args, path)
        if bdoc is None:
            row.update(baseline="failed", moved=True, baseline_why=berr)
        else:
            be = sorted(f"{d['rule']}: {d['message']}" for d in bdoc.get("diagnostics", []) if d.get("severity") == "error")
            row["baseline"] = "reject" if be else "accept"
            row["baseline_errors"] = be
            row["moved"] = be != sorted(row["cglint_errors"])
    exp = row["expect"]
    row["as_expected"] = exp is None or exp == v
    want_w = expected(h, target, "warned")
    if want_w is not None:
        got = "yes" if any(x["upstream"] for x in row.get("warn", [])) else "no"
        if got != want_w:
            row["as_expected"] = False
            row["why"] = (row.get("why", "") + "; " if row.get("why") else "") + \
                f"upstream {'warns' if got == 'yes' else 'does not warn'}, the corpus expects warned={want_w}"
    return row


def short(s, n=70):
    s = s or ""
    return s if len(s) <= n else s[: n - 1] + "…"


def report(rows, verbose, out=print):
    out(f"{'change':6} {'file':44} {'target':11} {'upstream':30} {'cglint':26} equal")
    for r in rows:
        up = r["upstream"] or "?"
        if up == "reject":
            up = f"reject ({(r.get('stage') or '').split(' ')[0]})"
        cg = r["cglint"]
        if cg == "reject":
            cg = "error " + ",".join(sorted({e.split(':')[0] for e in r.get("cglint_errors", [])}))
        mark = "yes" if r["equal"] else "NO"
        if r.get("known"):
            mark = "XPASS" if r["equal"] else "NO (XFAIL)"
        if not r["as_expected"]:
            mark += f" (upstream not {r['expect']}!)"
        out(f"{r['change']:6} {os.path.basename(r['file']):44} {r['target']:11} {short(up, 30):30} {short(cg, 26):26} {mark}")
        if verbose or not r["equal"] or not r["as_expected"] or r.get("note") or r.get("known"):
            if r.get("upstream_message"):
                out(f"         upstream: {r.get('upstream_type')}: {r['upstream_message']} [{r.get('upstream_at')}]")
            for e in r.get("cglint_errors", []):
                out(f"         cglint:   {e}")
            if r.get("why"):
                out(f"         why:      {r['why']}")
            if r.get("note"):
                out(f"         note:     {r['note']}")
            if r.get("known"):
                out(f"         known:    {r['known']}")
        if verbose:
            for w in r.get("upstream_warnings", []):
                out(f"         upstream warning: {short(w, 150)}")
            for w in r.get("cglint_warnings", []):
                out(f"         cglint warning:   {short(w, 150)}")
            for c in r.get("direct_calls", []):
                out(f"         direct call: {c.get('call')}: {c.get('result') or 'skipped: ' + str(c.get('skipped'))}"
                    + (f" (stand-in: {c['stand_in']})" if c.get("stand_in") else ""))
            if r.get("ignored_keys"):
                out(f"         keys the config lacks (upstream skips them): {', '.join(r['ignored_keys'])}")
            for n in r.get("stand_in_notes", []):
                out(f"         stand-in: {n}")
        for x in r.get("warn", []):
            out(f"         warning {x['rule']}: upstream {'warns' if x['upstream'] else 'silent'}, "
                f"cglint {'warns' if x['cglint'] else 'silent'}")
        for x in r.get("values", []):
            if x["required"] or x["verdict"] == "wrong" or verbose:
                out(f"         value {x['key']}: upstream {json.dumps(x['upstream'])}, cglint "
                    f"{json.dumps(x['cglint'])} ({x['verdict']}{', required' if x['required'] else ''})")


# --- self-test ---------------------------------------------------------------------------------

def self_test(cglint):
    """The comparison must be able to fail: doctored upstream records against real cglint runs."""
    ok = True
    files = dict((os.path.basename(f), (f, h)) for f, h in corpus())
    for f, t in list(KNOWN) + list(KNOWN_RELEASE):
        if f not in files or t not in TARGETS:
            print(f"self-test FAIL: KNOWN names {f} on {t}, which the corpus or the targets lack")
            ok = False
    cases = [
        # (file, target, doctored upstream record, want equal)
        ("B1-fsdp2-graphs.ko.yaml", "bridge-main",
         {"verdict": "reject", "message": "MFSDP V2 does not support CUDA graphs."}, True),
        ("B1-fsdp2-graphs.ko.yaml", "bridge-main",
         {"verdict": "reject", "message": "MFSDP V2 does not support CUDA graphs!"}, False),
        ("B1-fsdp2-graphs.ok.yaml", "bridge-main", {"verdict": "reject", "message": "x"}, False),
        ("B1-fsdp2-graphs.ko.yaml", "bridge-main", {"verdict": "accept"}, False),
        ("B4-energon-packing-delay-wgrad.ok.yaml", "bridge-main",
         {"verdict": "accept", "values": {"model.delay_wgrad_compute": True}}, False),
    ]
    for name, target, up, want in cases:
        if name not in files:
            print(f"self-test: {name} missing from the corpus")
            ok = False
            continue
        path, h = files[name]
        r = compare_row(cglint, target, path, h, up, [])
        if r["equal"] != want:
            print(f"self-test FAIL: {name} on {target} with upstream {up}: equal {r['equal']}, want {want} ({r.get('why')})")
            ok = False
    print("self-test: " + ("OK" if ok else "FAILED"))
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cglint")
    ap.add_argument("--trees", default=os.environ.get("CGLINT_MAIN_TREES") or "/tmp/main-trees")
    ap.add_argument("--release", action="store_true", help="also the v0.6.0 / core_v0.19.0 targets")
    ap.add_argument("--baseline-cglint", metavar="CGLINT0",
                    help="with --release: also run this cglint (one built before the main targets) on the "
                         "release targets, and say whether any release verdict moved")
    ap.add_argument("--json")
    ap.add_argument("--self-test", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    if args.self_test:
        return 0 if self_test(args.cglint) else 1

    targets = [t for t, v in TARGETS.items() if args.release or not v[4]]
    need = sorted({TARGETS[t][1] for t in targets} | {TARGETS[t][2] for t in targets if TARGETS[t][2]})
    trees, missing, wrong = find_trees(args.trees, need)
    python, ptried = find_python()
    if not python:
        missing.append("a Python that imports torch (CGLINT_TORCH_PYTHON); tried: " + ", ".join(ptried))
    if wrong:
        for w in wrong:
            print("WRONG TREE: " + w)
        return 2
    if missing:
        for m in missing:
            print("SKIPPED: missing " + m)
        return SKIP
    files = corpus()
    names = {os.path.basename(f) for f, _ in files}
    stale = sorted(f"{f} ({t})" for f, t in list(KNOWN) + list(KNOWN_RELEASE) if f not in names)
    if stale:
        print("KNOWN names files the corpus lacks: " + ", ".join(stale))
        return 1
    keys = rule_keys()
    for _, h in files:
        keys += [k for k in h.get("values", "").split(",") if k and k not in keys]
    print(f"trees: {', '.join(f'{k}={v}' for k, v in sorted(trees.items()))}; python {python}; "
          f"{len(files)} corpus files; {len(keys)} keys")
    up = run_upstream(python, trees, targets, files, keys, args.verbose)
    rows = []
    for t in targets:
        front = TARGETS[t][0]
        for f, h in files:
            if h.get("front", "bridge") != front:
                continue
            rec = up.get(t, {}).get(os.path.realpath(f), {"verdict": "not run"})
            rows.append(compare_row(args.cglint, t, f, h, rec, keys, args.baseline_cglint))
    for r in rows:
        known = (KNOWN_RELEASE if TARGETS[r["target"]][4] else KNOWN).get((os.path.basename(r["file"]), r["target"]))
        if known:
            r["known"] = known
    main_rows = [r for r in rows if not TARGETS[r["target"]][4]]
    rel_rows = [r for r in rows if TARGETS[r["target"]][4]]
    report(main_rows, args.verbose)
    xfail = [r for r in main_rows if r.get("known") and not r["equal"]]
    xpass = [r for r in main_rows if r.get("known") and r["equal"]]
    bad = [r for r in main_rows if (not r["equal"] and not r.get("known")) or not r["as_expected"]] + xpass
    eq = sum(r["equal"] for r in main_rows)
    print(f"main targets: {eq} of {len(main_rows)} rows equal; {len(xfail)} known differences (XFAIL); "
          f"{len(xpass)} listed as known but now equal (XPASS: remove them from KNOWN); "
          f"{sum(not r['as_expected'] for r in main_rows)} not as the corpus expects")
    if rel_rows:
        print("release targets (informational):")
        report(rel_rows, args.verbose)
        print(f"release targets: {sum(r['equal'] for r in rel_rows)} of {len(rel_rows)} rows equal")
        if args.baseline_cglint:
            moved = [r for r in rel_rows if r.get("moved")]
            print(f"release targets against {args.baseline_cglint}: {len(moved)} of {len(rel_rows)} rows moved")
            for r in moved:
                print(f"  moved: {os.path.basename(r['file'])} {r['target']}: before {r.get('baseline_errors')}, "
                      f"now {r.get('cglint_errors')}")
    wrong_vals = [(r, x) for r in rows for x in r.get("values", []) if x["verdict"] == "wrong" and not x["required"]]
    if wrong_vals:
        print(f"other values that differ (not counted): {len(wrong_vals)}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"version": 1, "trees": trees, "keys": keys, "rows": rows}, fh, indent=1)
    print("main_truth: " + ("FAILED" if bad else "OK"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
