#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The failure corpus (docs/failures.md) and its reproductions (fixtures/corpus/) agree.

Every thread row names its class (config, source: C/C++/CUDA, python: a user's Python model
code, runtime) and, for a reproduced one, the fixture that carries it; every file under
fixtures/corpus/ is named by a row; a row marked "caught" names the rules that catch it, and its
failing fixture (*.ko.*) expects an error or warning from each of them (not an input problem,
CG9xx); a row marked "missed" has no such expectation; and the recall the page states is the
one the rows give (config and source rows are the decidable ones). The fixtures
test (tests/test_fixtures.c) then holds each fixture to exactly what it expects, so the page
cannot claim a catch cglint does not make.
"""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1])
page = (root / "docs/failures.md").read_text()
fixtures = root / "fixtures"
corpus = fixtures / "corpus"
files = {f"corpus/{p.name}" for p in corpus.iterdir() if p.is_file()} if corpus.is_dir() else set()

ROW = re.compile(r"^\| *(\d+) *\| *\[([^\]]+)\]\((https://[^)]+)\) *\|([^|]*)\|([^|]*)\|([^|]*)\|([^|]*)\|", re.M)
EXPECT = re.compile(r"expect(?:-other)?:[^\n]*?\b(error|warning) (CG[1-8]\d\d)")

errors = []
rows = ROW.findall(page)
if len(rows) < 40:
    errors.append(f"docs/failures.md lists {len(rows)} threads (the corpus is at least 40)")
named = set()
decidable = caught = 0
seen_urls = set()
for num, title, url, release, cls, inputs, verdict in rows:
    cls, verdict = cls.strip(), verdict.strip()
    if url in seen_urls:
        errors.append(f"row {num}: {url} is listed twice")
    seen_urls.add(url)
    named_here = re.findall(r"`([^`]+)`", inputs)
    for f in named_here:
        if not (fixtures / f).is_file():
            errors.append(f"row {num}: fixtures/{f} does not exist")
        named.add(f)
    if cls not in ("config", "source", "python", "runtime"):
        errors.append(f"row {num}: class '{cls}' is not config, source, python or runtime")
        continue
    if cls in ("runtime", "python"):
        if any(".ko." in f for f in named_here):
            errors.append(f"row {num}: a runtime-only thread has a failing fixture")
        continue
    decidable += 1
    kos = [f for f in named_here if ".ko." in f and (fixtures / f).is_file()]
    fires = any(EXPECT.search((fixtures / f).read_text()) for f in kos)
    word = verdict.split()[0].rstrip(":").lower() if verdict else ""
    if word not in ("caught", "missed"):
        errors.append(f"row {num}: the verdict '{verdict}' starts with neither 'caught' nor 'missed'")
    elif word == "caught":
        caught += 1
        named_rules = set(re.findall(r"CG\d{3}", verdict.split("(")[0]))   # the catching rules, before any aside
        fired = {m[2] for f in kos for m in EXPECT.finditer((fixtures / f).read_text())}
        if not fires:
            errors.append(f"row {num}: marked caught, but none of its *.ko.* fixtures expects an error or warning")
        elif not named_rules or not named_rules <= fired:
            errors.append(f"row {num}: the verdict names {sorted(named_rules)}, its failing fixtures expect {sorted(fired)}")
    elif fires:
        errors.append(f"row {num}: marked missed, but its fixture expects an error or warning")
for f in sorted(files - named):
    errors.append(f"fixtures/{f} is named by no row of docs/failures.md")

stated = re.search(r"catches (\d+) of (\d+) decidable", page)
if not stated:
    errors.append("docs/failures.md does not state 'catches N of M decidable'")
elif (int(stated[1]), int(stated[2])) != (caught, decidable):
    errors.append(f"docs/failures.md states {stated[1]} of {stated[2]}; its rows give {caught} of {decidable}")

for e in errors:
    print("corpus:", e)
print(f"corpus: {len(rows)} threads, {decidable} decidable, {caught} caught")
sys.exit(1 if errors else 0)
