#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""ctest action: the GitHub Action (action.yml) and the README's example workflow.

usage: check.py REPO_ROOT CGLINT_BIN

1. action.yml against SchemaStore's schema for action metadata (lint.cjs), and what a schema
   cannot say: every input and output described, inputs reach scripts only through env:, each
   action it uses pinned to a major version, each run: script passes bash -n and shellcheck.
2. The README's example workflow, cut out as it is: SchemaStore's workflow schema, actionlint,
   and every with: key an input of action.yml.
3. The action's steps run here, as a runner runs a composite action's: apt-get, dpkg-query and
   pip are stand-ins (ctest pip builds the real thing), cglint is CGLINT_BIN; its outputs, the
   SARIF file, the verdict step, for several sets of inputs.
Fails (never skips) when node or the checkers are missing (tests/action/install.sh).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
faults = []


def fault(msg):
    faults.append(msg)
    print(f"FAIL: {msg}", file=sys.stderr)


def node_lint(kind, path):
    r = subprocess.run(["node", os.path.join(HERE, "lint.cjs"), kind, path], capture_output=True, text=True)
    if r.returncode == 2:
        sys.exit(f"action: {r.stderr.strip()}")
    for line in r.stdout.splitlines():
        fault(line)
    if r.returncode and not r.stdout:
        fault(f"lint.cjs {kind} {path}: exit {r.returncode}: {r.stderr.strip()}")


def check_metadata(action):
    inputs, outputs = action.get("inputs") or {}, action.get("outputs") or {}
    for kind, table in (("input", inputs), ("output", outputs)):
        for name, spec in table.items():
            if not (spec or {}).get("description", "").strip():
                fault(f"action.yml: {kind} {name} has no description")
    steps = action["runs"]["steps"]
    for k, step in enumerate(steps):
        where = f"action.yml: step {k + 1} ({step.get('name', '?')})"
        if "uses" in step and not re.fullmatch(r"[\w.-]+/[\w./-]+@v\d+", step["uses"]):
            fault(f"{where}: uses {step['uses']}: pin a major version (@vN)")
        script = step.get("run")
        if script is None:
            continue
        if EXPR.search(script):
            fault(f"{where}: an expression inside run: (script injection): pass it through env:")
        if step.get("shell") != "bash":
            fault(f"{where}: shell: bash is what the scripts are written for")
        with tempfile.NamedTemporaryFile("w", suffix=".sh", delete=False) as f:
            f.write("#!/bin/bash\n" + script)
        for cmd in (["bash", "-n", f.name], ["shellcheck", "-s", "bash", "-S", "warning", f.name]):
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode:
                fault(f"{where}: {cmd[0]}: {(r.stdout + r.stderr).strip()}")
        os.unlink(f.name)
    for name, spec in outputs.items():
        m = EXPR.fullmatch(str(spec.get("value", "")))
        if not m or not re.fullmatch(r"steps\.[\w-]+\.outputs\.[\w-]+", m.group(1)):
            fault(f"action.yml: output {name}: its value is not a step's output")


def readme_workflow(root, tmp):
    text = open(os.path.join(root, "README.md"), encoding="utf-8").read()
    m = re.search(r"<!-- tests/action/check\.py lints the next block[^>]*-->\n```yaml\n(.*?)```", text, re.S)
    if not m:
        fault("README.md: no example workflow after the tests/action/check.py marker")
        return None
    path = os.path.join(tmp, "example.yml")
    with open(path, "w", encoding="utf-8") as f:
        f.write(m.group(1))
    return path


def bridge_tree():
    """A Megatron-Bridge checkout, as tests/realtree finds one, or None."""
    for d in (os.environ.get("CGLINT_BRIDGE_TREE", ""), "/tmp/mb6", "../Megatron-Bridge"):
        if d and os.path.isdir(os.path.join(d, "src/megatron/bridge/recipes")):
            return os.path.abspath(d)
    return None


def check_example_on_bridge(path, action, root, cglint, tmp):
    """The README's example passes on Megatron-Bridge's own recipes (issue 30 item 7): with its
    settings, the action's run over a Bridge checkout's recipes must not fail the job."""
    tree = bridge_tree()
    if not tree:
        print("action: no Megatron-Bridge checkout (CGLINT_BRIDGE_TREE): the example is not run on one")
        return
    wf = yaml.safe_load(open(path, encoding="utf-8"))
    for job in wf["jobs"].values():
        for step in job.get("steps", []):
            if step.get("uses", "").startswith("cglint/cglint@"):
                given = {k: str(v) for k, v in (step.get("with") or {}).items()}
                given["paths"] = os.path.join(tree, "src/megatron/bridge/recipes")
                out, logs = run_action(action, root, cglint, tmp, given)
                if out.get("lint", {}).get("exit-code") != "0":
                    fault(f"README example on {tree}'s recipes: exit-code {out.get('lint')}: "
                          f"{logs.get('lint', {}).get('stdout', '')[-2000:]}")
                else:
                    print(f"action: the README's example passes on {tree}'s recipes")


def check_example(path, action):
    node_lint("workflow", path)
    wf = yaml.safe_load(open(path, encoding="utf-8"))
    inputs = action.get("inputs") or {}
    used = 0
    for job in wf["jobs"].values():
        for step in job.get("steps", []):
            if not step.get("uses", "").startswith("cglint/cglint@"):
                continue
            used += 1
            for key in step.get("with") or {}:
                if key not in inputs:
                    fault(f"README example: with: {key} is no input of action.yml")
            for name, spec in inputs.items():
                if spec.get("required") and name not in (step.get("with") or {}):
                    fault(f"README example: the required input {name} is missing")
    if not used:
        fault("README example: no step uses cglint/cglint")


# ---- the steps, run here ----

def expr(text, ctx):
    """${{ inputs.X }} and ${{ steps.ID.outputs.X }}: the only expressions the action may use."""
    def one(e):
        m = re.fullmatch(r"inputs\.([\w-]+)", e)
        if m:
            return ctx["inputs"][m.group(1)]
        if e == "runner.temp":
            return ctx["runner_temp"]
        m = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", e)
        if m:
            return ctx["outputs"].get(m.group(1), {}).get(m.group(2), "")
        fault(f"action.yml: expression '{e}' is not one this test knows")
        return ""
    return EXPR.sub(lambda m: one(m.group(1)), str(text))


def condition(cond, ctx):
    """An if: of comparisons joined by &&: A == 'x', A != 'x'."""
    if cond is None:
        return True
    ok = True
    for part in str(cond).split("&&"):
        m = re.fullmatch(r"\s*([\w.-]+)\s*(==|!=)\s*'([^']*)'\s*", part)
        if not m:
            fault(f"action.yml: if: {cond}: not a comparison this test knows")
            return False
        value = expr("${{ " + m.group(1) + " }}", ctx)
        ok &= (value == m.group(3)) == (m.group(2) == "==")
    return ok


STUBS = {
    # dpkg-query -W -f=... PKG: installed unless named in $STUB_MISSING
    # dpkg-query -S FILE: "stub-NAME: FILE", NAME the file's name less what follows its first '.'
    "dpkg-query": 'for p; do :; done\nif [ "$1" = -S ]; then b=${p##*/}; echo "stub-${b%%.*}: $p"; exit 0; fi\n'
                  'case " $STUB_MISSING " in *" $p "*) exit 1 ;; esac\nprintf "install ok installed"\n',
    "apt-get": 'echo "apt-get $*" >> "$STUB_LOG"\n',
    "sudo": 'echo "sudo" >> "$STUB_LOG"\nexec "$@"\n',
}


def run_action(action, root, cglint, tmp, given, missing="", cache=None, image=("ubuntu24", "20250105.1")):
    """Run every step whose if: holds with these inputs on a fresh runner of this image; returns
    (outputs, log of each run step). 'cache' (a dict: key -> saved folder) stands in for GitHub's
    cache service across runs; without it every run is a first one."""
    inputs = {name: str(spec.get("default", "")) for name, spec in (action.get("inputs") or {}).items()}
    inputs.update(given)
    cache = {} if cache is None else cache
    runner = tempfile.mkdtemp(dir=tmp)
    ctx = {"inputs": inputs, "outputs": {}, "runner_temp": runner}
    stubs = os.path.join(runner, "stubs")
    venv_bin = os.path.join(runner, "cglint-venv", "bin")
    os.makedirs(stubs)
    os.makedirs(venv_bin)
    for name, body in STUBS.items():
        with open(os.path.join(stubs, name), "w") as f:
            f.write("#!/bin/bash\n" + body)
        os.chmod(os.path.join(stubs, name), 0o755)
    # pip: "installs" CGLINT_BIN into the venv
    with open(os.path.join(venv_bin, "pip"), "w") as f:
        f.write(f'#!/bin/bash\necho "pip $*" >> "$STUB_LOG"\nln -sf {cglint} "{venv_bin}/cglint"\n')
    os.chmod(os.path.join(venv_bin, "pip"), 0o755)
    log = os.path.join(runner, "stub.log")
    open(log, "w").close()
    path_file = os.path.join(runner, "path")
    open(path_file, "w").close()
    logs = {}
    for k, step in enumerate(action["runs"]["steps"]):
        if not condition(step.get("if"), ctx):
            continue
        sid = step.get("id", f"step{k}")
        if "uses" in step:
            logs[sid] = {key: expr(v, ctx) for key, v in (step.get("with") or {}).items()}
            use_cache(step["uses"], logs[sid], cache, ctx["outputs"].setdefault(sid, {}))
            continue
        out_file = os.path.join(runner, f"out{k}")
        open(out_file, "w").close()
        env = {key: v for key, v in os.environ.items() if not key.startswith(("GITHUB_", "RUNNER_"))}
        extra_path = [line.strip() for line in open(path_file) if line.strip()]
        env.update({"ImageOS": image[0], "ImageVersion": image[1], "CGLINT_CUDA_PATH": "none", "RUNNER_TEMP": runner, "GITHUB_OUTPUT": out_file, "GITHUB_PATH": path_file,
                    "GITHUB_ACTION_PATH": root, "STUB_LOG": log, "STUB_MISSING": missing,
                    "PATH": os.pathsep.join(extra_path[::-1] + [stubs, env["PATH"]])})
        env.update({key: expr(v, ctx) for key, v in (step.get("env") or {}).items()})
        cwd = os.path.join(root, expr(step.get("working-directory", "."), ctx))
        r = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]], cwd=cwd,
                           env=env, capture_output=True, text=True)
        logs[sid] = {"rc": r.returncode, "stdout": r.stdout, "stderr": r.stderr}
        ctx["outputs"][sid] = dict(line.split("=", 1) for line in open(out_file).read().splitlines() if "=" in line)
        if r.returncode:
            break           # a failed step ends the job
    logs["stubs"] = open(log).read()
    return ctx["outputs"], logs


def use_cache(uses, given, cache, outputs):
    """actions/cache/restore and /save, as the cache service does them: by exact key."""
    if uses.startswith("actions/cache/restore@"):
        saved = cache.get(given["key"])
        outputs["cache-hit"] = "true" if saved else "false"
        if saved:
            shutil.rmtree(given["path"], ignore_errors=True)
            shutil.copytree(saved, given["path"], symlinks=True)
    elif uses.startswith("actions/cache/save@"):
        if given["key"] in cache:
            fault(f"the cache was saved again under {given['key']}, which GitHub refuses")
        dest = tempfile.mkdtemp()
        shutil.rmtree(dest)
        shutil.copytree(given["path"], dest, symlinks=True)
        cache[given["key"]] = dest


def step_id(action, pred):
    """The id run_action gives the first step pred() holds for."""
    for k, step in enumerate(action["runs"]["steps"]):
        if pred(step):
            return step.get("id", f"step{k}")
    fault("action.yml: a step this test looks for is gone")
    return None


def check_steps(action, root, cglint, tmp):
    upload = step_id(action, lambda s: s.get("uses", "").startswith("github/codeql-action/upload-sarif@"))
    verdict = step_id(action, lambda s: s is action["runs"]["steps"][-1])
    ko = "fixtures/examples/nemotron_full_recompute.yaml"
    ok = "fixtures/examples/llama3_8b_te_scoped.yaml"

    out, logs = run_action(action, root, cglint, tmp, {"paths": f"{ko} {ok}", "format": "concise"})
    if "apt-get" in logs["stubs"]:
        fault(f"nothing missing, yet apt-get ran: {logs['stubs']}")
    if out.get("install", {}).get("version", "") == "":
        fault(f"the install step gave no version: {logs.get('install')}")
    lint = out.get("lint", {})
    if lint.get("exit-code") != "1" or "[CG111" not in logs["lint"]["stdout"]:
        fault(f"an error in {ko}: exit-code {lint.get('exit-code')}, output {logs['lint']}")
    if lint.get("sarif-file"):
        fault("no SARIF was asked for, yet one was written")
    if logs.get(verdict, {}).get("rc") != 1:
        fault(f"findings: the last step did not fail the job: {logs.get(verdict)}")

    out, logs = run_action(action, root, cglint, tmp, {"paths": ko, "fail-on": "never", "format": "github"},
                           missing="libclang-19-dev cmake")
    if "apt-get install -y -qq --no-install-recommends cmake libclang-19-dev" not in logs["stubs"]:
        fault(f"missing packages were not installed: {logs['stubs']!r}")
    if out["lint"].get("exit-code") != "0" or "::error file=" not in logs["lint"]["stdout"]:
        fault(f"fail-on never: {out['lint']} {logs['lint']}")
    if verdict in logs:
        fault("fail-on never: the last step ran")

    out, logs = run_action(action, root, cglint, tmp, {"paths": ko, "upload-sarif": "true", "fail-on": "warning"})
    sarif = out["lint"].get("sarif-file", "")
    if not sarif.startswith(tempfile.gettempdir()) or not os.path.isfile(sarif):
        fault(f"upload-sarif with no sarif-file: no SARIF in runner.temp ({out['lint']})")
    elif json.load(open(sarif)).get("version") != "2.1.0":
        fault(f"{sarif} is not SARIF 2.1.0")
    got = logs.get(upload, {})
    if got.get("sarif_file") != sarif or got.get("category") != "cglint":
        fault(f"the upload step got {got}, not {sarif}")

    out, logs = run_action(action, root, cglint, tmp, {
        "paths": "examples\nconfig/CG111-mcore018.ko.yaml", "working-directory": "fixtures", "mcore": "0.17",
        "bridge": "0.4", "args": "--select CG111 --isolated", "sarif-file": "out.sarif", "format": "json"})
    lint = out["lint"]
    sarif = os.path.join(root, "fixtures", "out.sarif")
    if lint.get("sarif-file") != sarif:
        fault(f"sarif-file out.sarif in fixtures: {lint}")
    else:
        os.unlink(sarif)
    rules = {d["rule"] for d in json.loads(logs["lint"]["stdout"] or "{}").get("diagnostics", [])}
    if rules != {"CG111"} or json.loads(logs["lint"]["stdout"])["target"]["mcore"] != "0.17":
        fault(f"args, mcore, working-directory: rules {rules}, {logs['lint']['stderr']}")

    # fail-on undecided: the partial override has no finding at or above error, but checks it leaves undecided
    out, logs = run_action(action, root, cglint, tmp, {"paths": ok, "fail-on": "undecided", "format": "concise"})
    if out["lint"].get("exit-code") != "1" or logs.get(verdict, {}).get("rc") != 1 \
            or "fail the run under fail-on undecided" not in logs["lint"]["stderr"]:
        fault(f"fail-on undecided on {ok}: exit-code {out['lint'].get('exit-code')}, {logs['lint']}")
    out, logs = run_action(action, root, cglint, tmp, {"paths": ok, "fail-on": "error", "format": "concise"})
    if out["lint"].get("exit-code") != "0" or verdict in logs:
        fault(f"fail-on error on {ok}: exit-code {out['lint'].get('exit-code')}, {logs['lint']}")

    check_cache(action, root, cglint, tmp, ko)

    for given, why in (({"paths": ko, "fail-on": "errors"}, "a fail-on no one knows"),
                       ({"paths": "fixtures/examples/*.yaml"}, "a glob is a file name")):
        out, logs = run_action(action, root, cglint, tmp, given)
        if out["lint"].get("exit-code") != "2" or logs.get(verdict, {}).get("rc") != 1:
            fault(f"{why}: exit-code {out['lint'].get('exit-code')}, then {logs.get(verdict)}")


def check_cache(action, root, cglint, tmp, ko):
    """The build is cached by cglint's version, its sources, the runner's image and the CMake
    options: a second run on the same image restores it and builds nothing, installing only what
    the program loads at run time; another image or other options build again (issue 30 item 14)."""
    cache = {}
    version = re.search(r"^project\(cglint VERSION ([0-9.]+)", open(os.path.join(root, "CMakeLists.txt")).read(), re.M)
    out, logs = run_action(action, root, cglint, tmp, {"paths": ko}, cache=cache)
    key = out.get("key", {}).get("key", "")
    if not key.startswith(f"cglint-{version.group(1)}-ubuntu24-20250105.1-") or list(cache) != [key]:
        fault(f"first run: the cache key {key!r} (saved: {list(cache)}) names no version and runner image")
    if "pip install" not in logs["stubs"] or out["lint"].get("exit-code") != "1":
        fault(f"first run: no build, or no lint: {logs['stubs']!r} {out.get('lint')}")
    runtime = os.path.join(cache.get(key, "/nonexistent"), "cglint-runtime-packages")
    want = set(open(runtime).read().split()) if os.path.exists(runtime) else set()
    if not {"stub-libclang-19", "stub-libgit2", "stub-stddef"} <= want:
        fault(f"first run: the build did not record what it loads at run time: {want}")
    missing = "libclang-19-dev cmake stub-libclang-19"
    out, logs = run_action(action, root, cglint, tmp, {"paths": ko}, cache=cache, missing=missing)
    if out.get("cache", {}).get("cache-hit") != "true" or "pip install" in logs["stubs"]:
        fault(f"second run on the same image: the build ran again: {logs['stubs']!r}")
    if "apt-get install -y -qq --no-install-recommends stub-libclang-19\n" not in logs["stubs"] or "cmake" in logs["stubs"]:
        fault(f"second run: not only the run-time packages were installed: {logs['stubs']!r}")
    if out["lint"].get("exit-code") != "1" or out.get("install", {}).get("version") != version.group(1):
        fault(f"second run: the cached cglint did not run: {out.get('lint')} {out.get('install')}")
    for given, image, why in (({"paths": ko}, ("ubuntu22", "20250105.1"), "another image"),
                              ({"paths": ko, "cmake-args": "-DCGLINT_PROBE=OFF -DX=1"}, ("ubuntu24", "20250105.1"),
                               "other CMake options")):
        out, logs = run_action(action, root, cglint, tmp, given, cache=cache, image=image)
        if out.get("cache", {}).get("cache-hit") != "false" or "pip install" not in logs["stubs"]:
            fault(f"{why}: the cached build was used: {logs['stubs']!r}")
    if len(cache) != 3:
        fault(f"three keys expected in the cache, got {sorted(cache)}")


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: check.py REPO_ROOT CGLINT_BIN")
    root, cglint = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    for tool in ("node", "shellcheck"):
        if not shutil.which(tool):
            sys.exit(f"action: {tool} is missing (tests/setup.sh installs it)")
    path = os.path.join(root, "action.yml")
    node_lint("action", path)
    action = yaml.safe_load(open(path, encoding="utf-8"))
    check_metadata(action)
    with tempfile.TemporaryDirectory(prefix="cglint-action.") as tmp:
        example = readme_workflow(root, tmp)
        if example:
            check_example(example, action)
        check_steps(action, root, cglint, tmp)
        if example:
            check_example_on_bridge(example, action, root, cglint, tmp)
    if faults:
        sys.exit(f"action: {len(faults)} problem(s)")
    print("action: action.yml, the README's workflow and the action's steps are fine")


if __name__ == "__main__":
    main()
