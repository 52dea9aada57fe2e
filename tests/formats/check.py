#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The machine formats against their schemas, on real output: cglint over every fixture folder with
--format json (docs/cglint-output.schema.json, python3-jsonschema), gitlab (GitLab's Code Quality
format, tests/formats/gitlab-codequality.schema.json, and the Code Climate types its consumers
publish: published.py) and junit (xmllint --schema tests/formats/junit.xsd, and Jenkins' published
JUnit schema: published.py; exactly the findings at or above --fail-on are failed test cases); and
the rule pages: every rule SARIF describes has a helpUri naming a page that exists in docs/rules/,
as has every JSON finding's url and every rule of the packs. One cglint a run writes all four
formats (JSON on stdout, the rest through --output), and on the examples --format prints what
--output wrote. It fails when the published definitions are missing
(tests/formats/install-published.sh, which tests/setup.sh runs).

usage: check.py CGLINT ROOT"""
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

import jsonschema

import published

cglint, root = os.path.abspath(sys.argv[1]), pathlib.Path(sys.argv[2]).resolve()
# the address the build was given for rule pages (-DCGLINT_DOCS_URL=); empty: findings link no
# address (JSON url null, no SARIF helpUri) and name `cglint explain ID` instead (item 13 of issue 30)
_cache = pathlib.Path(cglint).parent / "CMakeCache.txt"
DOCS_URL = next((line.split("=", 1)[1].strip() for line in (_cache.read_text().splitlines() if _cache.exists() else [])
                 if line.startswith("CGLINT_DOCS_URL:")), "")


def page_url(rule):
    if not DOCS_URL:
        return None
    return DOCS_URL.replace("{id}", rule) if "{id}" in DOCS_URL else DOCS_URL.rstrip("/") + f"/{rule}.md"


failures = []
OTHERS = ("gitlab", "junit", "sarif")
LIMITS = ["--source-timeout", "3", "--source-memory", "512"]


def fail(msg):
    failures.append(msg)


def validator(path):
    schema = json.loads(path.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())


out_schema = validator(root / "docs/cglint-output.schema.json")
gitlab_schema = validator(root / "tests/formats/gitlab-codequality.schema.json")
if published.missing():
    fail(f"missing {', '.join(published.missing())}: run tests/formats/install-published.sh")
SEVS = ("note", "warning", "error")


def fail_on(args):
    return args[args.index("--fail-on") + 1] if "--fail-on" in args else "error"


def check_junit(label, suites, diags, level):
    """Exactly the findings at or above --fail-on are failed test cases (of their severity); the
    others pass, with their text as system-out. Cases come in the order of the JSON findings."""
    cases = suites.findall("./testsuite/testcase") if diags else []
    if len(cases) != len(diags):
        fail(f"junit {label}: {len(cases)} test cases for {len(diags)} findings")
    for c, d in zip(cases, diags):
        f, out = c.find("failure"), c.find("system-out")
        want = SEVS.index(d["severity"]) >= SEVS.index(level)
        if not c.get("name").startswith(d["rule"] + " ") or (f is not None) != want or (out is None) != want:
            fail(f"junit {label}: the case '{c.get('name')}' for a {d['severity']} {d['rule']} "
                 f"{'fails' if f is not None else 'passes'} under --fail-on {level}")
        elif want and f.get("type") != d["severity"]:
            fail(f"junit {label}: the case '{c.get('name')}' fails as {f.get('type')}, not {d['severity']}")
    for n in [suites] + suites.findall("./testsuite"):
        if int(n.get("failures")) != len(n.findall(".//failure")):
            fail(f"junit {label}: {n.get('name')} says failures=\"{n.get('failures')}\" "
                 f"for {len(n.findall('.//failure'))}")


gitlab_reports, junit_reports = [], []
work = pathlib.Path(tempfile.mkdtemp())
try:
    proj = work / "proj"
    shutil.copytree(root / "fixtures", proj)
    (proj / ".git").mkdir()
    # every fixture folder, plus input with no file, an odd name and a clean run
    # (the source limits are the macro-bomb fixture's own: without them it runs to the 60 s default)
    # (after '--': the folder 'suggest' is a path, not the subcommand)
    runs = [LIMITS + ["--", d.name] for d in sorted(proj.iterdir()) if d.is_dir() and d.name != ".git"]
    runs += [["examples/llama3_8b_te_scoped.yaml", "model.cuda_graph_impl=locl"],
             ["--mcore", "0.19", "examples/llama3_8b_te_scoped.yaml", "model.cuda_graph_scope=[]"]]
    runs.append(["--fail-on", "warning", "mlm"])       # notes pass a JUnit test case, warnings fail it
    (proj / "clean.yaml").write_text("model:\n  cuda_graph_impl: none\n")
    runs.append(["clean.yaml"])
    seen = {"edits": 0, "notes": 0, "url": 0, "gitlab": 0, "junit": 0, "clean": 0}
    pages = {p.stem for p in (root / "docs/rules").glob("CG*.md")}
    for k, args in enumerate(runs):
        # one cglint a run: JSON on stdout, the others through --output
        files = {fmt: work / f"{k}.{fmt}" for fmt in OTHERS}
        p = subprocess.run([cglint, "--format", "json"] + [f"-o{f}={p}" for f, p in files.items()] + args,
                           cwd=proj, capture_output=True, text=True)
        if p.returncode > 2 or not p.stdout or not all(f.exists() for f in files.values()):
            fail(f"cglint --format json {' '.join(args)} exited {p.returncode}: {p.stderr}")
            continue
        outs = {"json": p.stdout, **{fmt: f.read_text() for fmt, f in files.items()}}
        # --output writes what --format prints: one folder shows it (the same writers serve both)
        if args[-1] == "examples":
            for fmt in OTHERS:
                q = subprocess.run([cglint, "--format", fmt] + args, cwd=proj, capture_output=True, text=True)
                if q.stdout != outs[fmt]:
                    fail(f"cglint --format {fmt} {' '.join(args)} differs from its --output {fmt}=FILE")
        doc = json.loads(outs["json"])
        for e in out_schema.iter_errors(doc):
            fail(f"json {' '.join(args)}: {e.json_path}: {e.message}")
        diags = doc["diagnostics"]
        for d in diags:
            seen["edits"] += "edits" in d
            seen["notes"] += "notes" in d
            if d["rule"] in pages:
                seen["url"] += 1
                if d["url"] != page_url(d["rule"]):
                    fail(f"json {d['rule']}: url {d['url']}, expected {page_url(d['rule'])}")
        gl = json.loads(outs["gitlab"])
        for e in gitlab_schema.iter_errors(gl):
            fail(f"gitlab {' '.join(args)}: {e.json_path}: {e.message}")
        if len(gl) != len(diags):
            fail(f"gitlab {' '.join(args)}: {len(gl)} issues for {len(diags)} findings")
        for i in gl:
            if "\n" in i["description"]:   # the Code Climate spec: a single line of text
                fail(f"gitlab {' '.join(args)}: {i['check_name']}: a description of more than one line")
        gitlab_reports.append((" ".join(args), gl))
        junit_reports.append((" ".join(args), outs["junit"]))
        fps = [i["fingerprint"] for i in gl]
        if len(set(fps)) != len(fps):
            fail(f"gitlab {' '.join(args)}: fingerprints are not unique")
        seen["gitlab"] += len(gl)
        xml = work / "junit.xml"
        xml.write_text(outs["junit"])
        p = subprocess.run(["xmllint", "--noout", "--schema", str(root / "tests/formats/junit.xsd"), str(xml)],
                           capture_output=True, text=True)
        if p.returncode:
            fail(f"junit {' '.join(args)}: {p.stderr.strip()}")
        suites = ET.parse(xml).getroot()
        check_junit(" ".join(args), suites, diags, fail_on(args))
        seen["junit"] += len(suites.findall("./testsuite/testcase/failure"))
        seen["clean"] += not diags and len(suites.findall("./testsuite/testcase")) == 1
        # no format links an address that does not exist (github.com/cglint/cglint was one)
        for fmt, text in outs.items():
            if "github.com/cglint" in text:
                fail(f"{fmt} {' '.join(args)}: links github.com/cglint, a repository that does not exist")
        # the rule pages: every rule SARIF describes has its page, linked where the build gave an address
        for r in json.loads(outs["sarif"])["runs"][0]["tool"]["driver"]["rules"]:
            url = r.get("helpUri")
            if url != page_url(r["id"]):
                fail(f"sarif rule {r['id']}: helpUri '{url}', expected {page_url(r['id'])}")
            if r["id"] not in pages:
                fail(f"rule {r['id']} has no page docs/rules/{r['id']}.md")
    # SARIF describes the rules that fired; every rule of the packs has its page all the same
    for r in json.loads(subprocess.run([cglint, "rules", "--format", "json"], capture_output=True, text=True).stdout):
        if r["rule"] not in pages:
            fail(f"rule {r['rule']} has no page docs/rules/{r['rule']}.md")
    for what, n in seen.items():
        if not n:
            fail(f"no run produced any {what}: the fixtures no longer exercise it")
    if not published.missing():
        failures.extend(published.check_gitlab(gitlab_reports) + published.check_junit(junit_reports))
    print("formats:", ", ".join(f"{n} {w}" for w, n in seen.items()), f"in {len(runs)} runs")
finally:
    shutil.rmtree(work)
for f in failures:
    print("formats: FAIL:", f)
sys.exit(1 if failures else 0)
