#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Run cglint over checked-out source trees and say, per tree, how much of it was analysed.

usage: corpus.py CGLINT NAME=DIR[:BUILD_DIR] ... [--list] [--jobs N]

For each tree: the C/C++/CUDA files cglint reads, how many were analysed whole, in part
(CG919: missing declarations) or refused (CG911 not analysed, CG920 stopped, CG904 unreadable)
with the causes of refusal grouped, the findings by rule, and the wall time. BUILD_DIR, when
given, is passed as -p (a folder with compile_commands.json). --list prints every finding
outside CG9xx, for review. The trees are never part of this repository: check them out
(cuda-samples, TransformerEngine, nccl-tests, apex) and name them here.
"""
import collections
import json
import os
import re
import subprocess
import sys
import time

SOURCE = (".c", ".cc", ".cpp", ".cxx", ".cu", ".cuh", ".h", ".hpp")
REFUSED = {"CG911", "CG920", "CG904"}
HEADER = (".h", ".hpp", ".cuh")


def sources(root):
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if not x.startswith("."))
        for f in sorted(files):
            if f.endswith(SOURCE):
                yield os.path.join(d, f)


def cause(msg):
    """A refusal's first error, with names and positions taken out, so that causes group."""
    m = re.search(r"not analysed: (.*?)( \(against the CUDA headers|\(and \d+ more| \(and|$)", msg)
    first = m.group(1) if m else msg
    first = re.sub(r"^\S+:\d+:\d+: ", "(in a header) ", first)
    nf = re.search(r"'([^']+)' file not found", first)
    if nf:
        return "header not found: " + nf.group(1)
    return re.sub(r"'[^']*'", "'…'", first)[:90]


def run(cglint, name, root, build, jobs, listing):
    cmd = [cglint, "-f", "json", "-j", str(jobs)] + (["-p", build] if build else []) + [root]
    t = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - t
    if p.returncode > 2 or not p.stdout:
        sys.exit("corpus.py: %s exited %d: %s" % (" ".join(cmd), p.returncode, p.stderr[-500:]))
    diags = json.loads(p.stdout)["diagnostics"]
    files = list(sources(root))
    refused = {d["path"]: d for d in diags if d["rule"] in REFUSED}
    part = {d["path"] for d in diags if d["rule"] == "CG919"} - set(refused)
    causes = collections.Counter(cause(d["message"]) for d in refused.values())
    found = [d for d in diags if not d["rule"].startswith("CG9")]
    rules = collections.Counter(d["rule"] for d in found)
    print("## %s (%s%s)" % (name, root, ", -p " + build if build else ""))
    headers = sum(1 for f in files if f.endswith(HEADER))
    refused_headers = sum(1 for f in refused if f.endswith(HEADER))
    print("files %d (%d headers), analysed %d (whole %d, in part %d), refused %d (%d headers); %d findings %s; %.1f s" % (
        len(files), headers, len(files) - len(refused), len(files) - len(refused) - len(part), len(part),
        len(refused), refused_headers, len(found), dict(sorted(rules.items())), wall))
    for c, n in causes.most_common(12):
        print("  refused %3d  %s" % (n, c))
    if listing:
        for f in sorted(refused):
            print("  refused %s: %s" % (os.path.relpath(f, root), refused[f]["message"][:160]))
        for d in found:
            print("  %s:%d: %s %s" % (os.path.relpath(d["path"], root), d["line"], d["rule"], d["message"][:160]))
    print()


def main(argv):
    listing = "--list" in argv
    jobs = 1
    if "--jobs" in argv:
        jobs = int(argv[argv.index("--jobs") + 1])
        del argv[argv.index("--jobs"):argv.index("--jobs") + 2]
    args = [a for a in argv[1:] if a != "--list"]
    if len(args) < 2:
        sys.exit(__doc__)
    for spec in args[1:]:
        name, _, rest = spec.partition("=")
        root, _, build = rest.partition(":")
        if not os.path.isdir(root):
            print("## %s: %s is not checked out, skipped\n" % (name, root))
            continue
        run(args[0], name, root, build or None, jobs, listing)


if __name__ == "__main__":
    main(sys.argv)
