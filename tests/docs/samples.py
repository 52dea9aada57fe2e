#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""ctest docs-samples: the sample outputs in README.md and docs/*.md are what cglint prints now.

Regenerate every sample after a change to what cglint prints (one command, from the repository
root, after a build):

    python3 tests/docs/samples.py build/cglint --write

A sample is the fenced block right after a marker line; the block is the command, as a user types
it, and what it printed (stdout, then the summary on stderr), run from the repository root on the
bundled examples, without colour, with the shim headers and without the machine's Python:

    <!-- sample: cglint --exit-zero fixtures/examples/capture.cu -->
    ```text
    $ cglint --exit-zero fixtures/examples/capture.cu
    ...
    ```

`<!-- sample head=N: ... -->` keeps the first N lines of the output and says how many it left out.
Without --write the test fails when a sample differs, when a command exits 3 or more, when
README.md has no sample at all, when a relative link in README.md or docs/*.md names a file that
is not there (the reference that moved out of the README is linked, not lost), and when README.md
holds a measurement (a time, a size, a ratio) outside a sample: numbers live in docs/benchmark.md,
each table under the tests/bench command that measured it.

usage: samples.py CGLINT [--write] [--root DIR]
"""
import os
import re
import shlex
import subprocess
import sys

MARK = re.compile(r"^<!-- sample(?: head=(\d+))?: (cglint(?: [^\n]*)?) -->\n```text\n(.*?)^```\n", re.S | re.M)
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
# a measurement: a number with a unit of time, size or speed, or a ratio such as 0.42x / 1/78
MEASURE = re.compile(r"\b\d[\d,.]*\s?(?:ms|µs|s|MB|KB|MiB|KiB|GB)\b|\b\d+(?:\.\d+)?x\b|~1/\d+")


def run(cglint, root, args):
    env = dict(os.environ, NO_COLOR="1", CGLINT_CUDA_PATH="none", CGLINT_PYTHON="none", PYTHONPATH="",
               LC_ALL="C.UTF-8", TERM="dumb")
    r = subprocess.run([cglint] + args, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, errors="backslashreplace", timeout=120)
    return r.returncode, r.stdout


def render(cglint, root, head, command):
    args = shlex.split(command)[1:]
    rc, out = run(cglint, root, args)
    lines = out.splitlines()
    if head and len(lines) > int(head):
        left = len(lines) - int(head)
        lines = lines[:int(head)] + [f"... ({left} more lines)"]
    return rc, "$ " + command + "\n" + "".join(line + "\n" for line in lines)


def outside_samples(text):
    return MARK.sub("", text)


def main():
    argv = sys.argv[1:]
    write = "--write" in argv
    argv = [a for a in argv if a != "--write"]
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    if "--root" in argv:
        i = argv.index("--root")
        root = os.path.abspath(argv[i + 1])
        del argv[i:i + 2]
    if len(argv) != 1:
        sys.exit(__doc__)
    cglint = os.path.abspath(argv[0])
    docs = os.path.join(root, "docs")
    files = ["README.md"] + sorted("docs/" + n for n in os.listdir(docs) if n.endswith(".md"))
    bad, counts, stale = [], {}, []
    for rel in files:
        path = os.path.join(root, rel)
        text = open(path, encoding="utf-8").read()
        n = 0

        def one(m):
            nonlocal n
            n += 1
            rc, block = render(cglint, root, m.group(1), m.group(2))
            if rc >= 3:
                bad.append(f"{rel}: `{m.group(2)}` exited {rc}")
            if block != m.group(3):
                stale.append(f"{rel}: the sample of `{m.group(2)}` differs from what cglint prints now")
            head = f" head={m.group(1)}" if m.group(1) else ""
            return f"<!-- sample{head}: {m.group(2)} -->\n```text\n{block}```\n"

        new = MARK.sub(one, text)
        counts[rel] = n
        if write and new != text:
            with open(path, "w", encoding="utf-8") as f:
                f.write(new)
        for target in LINK.findall(text):
            if re.match(r"[a-z]+:|#", target):
                continue
            if not os.path.exists(os.path.normpath(os.path.join(os.path.dirname(path), target.split("#")[0]))):
                bad.append(f"{rel}: the link to {target} names no file")
    # the README's editor snippets are the ones docs/editors.md marks and tests/lsp runs
    editors = open(os.path.join(root, "docs", "editors.md"), encoding="utf-8").read()
    readme_text = open(os.path.join(root, "README.md"), encoding="utf-8").read()
    for m in re.finditer(r"^( *)```(lua|elisp)\n(.*?)^\1```", readme_text, re.S | re.M):
        block = re.sub(r"^" + m.group(1), "", m.group(3), flags=re.M)
        marked = re.search(r"<!-- tests/lsp/[\w-]+\.sh runs the next block[^>]*-->\n```" + m.group(2) + r"\n"
                           + re.escape(block) + "```", editors)
        if not marked:
            bad.append(f"README.md: the {m.group(2)} snippet is not the one docs/editors.md marks for tests/lsp")
    if not counts["README.md"]:
        bad.append("README.md: no sample (<!-- sample: cglint ... --> before a ```text block)")
    readme = outside_samples(open(os.path.join(root, "README.md"), encoding="utf-8").read())
    for k, line in enumerate(readme.splitlines(), 1):
        m = MEASURE.search(line)
        if m:
            bad.append(f"README.md: a measurement outside a sample ('{m.group(0)}' in: {line.strip()[:80]}); "
                       "numbers go in docs/benchmark.md under the tests/bench command that measured them")
    # every table of docs/benchmark.md sits under the tests/bench command that measured it
    bench = open(os.path.join(root, "docs", "benchmark.md"), encoding="utf-8").read()
    for m in re.finditer(r"(?:^(.*)\n)?^\|[^\n]*\|\n^\|[-| ]+\|$", bench, re.M):
        cmd = re.fullmatch(r"<!-- bench: (.*) -->", (m.group(1) or "").strip())
        script = re.search(r"tests/bench/\S+", cmd.group(1)) if cmd else None
        if not script or not os.path.exists(os.path.join(root, script.group(0))):
            bad.append(f"docs/benchmark.md: the table at '{bench[m.start():m.start() + 60].strip()}' names no "
                       "tests/bench script it came from (<!-- bench: COMMAND --> on the line above)")
    if not write:
        bad += stale
    for b in bad:
        print("docs-samples: FAIL:", b)
    if stale and not write:
        print("docs-samples: regenerate: python3 tests/docs/samples.py build/cglint --write")
    total = sum(counts.values())
    print(f"docs-samples: {total} sample(s) in {sum(1 for v in counts.values() if v)} file(s)"
          + (f", {len(stale)} rewritten" if write else ""))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
