#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""cglint on PyTorch extension code (tests/realsrc/aten/): recall and false reports.

usage: aten_corpus.py CGLINT [--torch-include DIR] [--cuda-path DIR] [--min-recall PCT]

The corpus imitates TransformerEngine's pytorch/csrc and apex's csrc (written for these tests,
no upstream code): ATen ops driven from a graphed step, with host syncs, allocations and
pinning written into the captured path, each marked `// expect: SEVERITY RULE` on its line,
and clean versions beside them that must stay silent. It is checked twice when it can be:
  shim   --cuda-path none, cglint's built-in c10/ATen/torch headers (always)
  torch  PyTorch's own headers (--torch-include or $CGLINT_TORCH_INCLUDE: torch's include folder,
         the first of torch.utils.cpp_extension.include_paths()) with a CUDA toolkit
         (--cuda-path, $CUDA_PATH, /usr/local/cuda), through a compile_commands.json giving the
         C++ extension include paths; skipped when either is missing.
Recall: marked hazards reported with their rule on their line. A false report: any error or
warning not marked (a refusal, CG911/CG912/CG919/CG920, included); notes not marked (CG411, a
captured call into another translation unit) are counted apart. Fails under --min-recall (95) or on
any false report; exit 77 never (the shim run always happens).
"""
import argparse
import collections
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "aten")
MARK = re.compile(r"//\s*expect:\s*(error|warning|note)\s+(CG\d+)")


def expectations(folder):
    want = set()
    for path in sorted(glob.glob(os.path.join(folder, "*"))):
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                for m in MARK.finditer(line):
                    want.add((os.path.basename(path), n, m.group(2)))
    return want


def torch_include(given):
    if given:
        return given
    return os.environ.get("CGLINT_TORCH_INCLUDE")


def run(cglint, args, folder):
    # PyTorch's torch/extension.h is most of its C++ API: tens of seconds of parsing a file
    p = subprocess.run([cglint, "--format", "json", "-q", "--no-cache", "--source-timeout", "1800", *args, folder],
                       capture_output=True, text=True)
    if p.returncode > 2:
        sys.exit(f"aten_corpus.py: cglint exited {p.returncode}: {p.stderr[:500]}")
    got, notes = set(), set()
    for d in json.loads(p.stdout)["diagnostics"]:
        (notes if d["severity"] == "note" else got).add((os.path.basename(d["path"]), d["line"], d["rule"]))
    return got, notes


def judge(mode, want, run_result):
    got, notes = run_result
    notes -= want
    found = want & (got | notes)
    false = sorted(got - want)
    by_rule = collections.Counter(r for _, _, r in want)
    hit_rule = collections.Counter(r for _, _, r in found)
    recall = 100.0 * len(found) / len(want) if want else 100.0
    print(f"{mode:6} recall {len(found)}/{len(want)} ({recall:.0f}%), false reports {len(false)}, "
          f"other notes {len(notes)} ({' '.join(sorted(collections.Counter(r for _, _, r in notes)))}); "
          + ", ".join(f"{r} {hit_rule[r]}/{n}" for r, n in sorted(by_rule.items())))
    for f, line, rule in sorted(want - got):
        print(f"  missed  {f}:{line} {rule}")
    for f, line, rule in false:
        print(f"  false   {f}:{line} {rule}")
    return recall, len(false)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cglint")
    ap.add_argument("--torch-include")
    ap.add_argument("--cuda-path")
    ap.add_argument("--min-recall", type=float, default=95.0)
    a = ap.parse_args()
    want = expectations(CORPUS)
    results = [judge("shim", want, run(a.cglint, ["--cuda-path", "none"], CORPUS))]
    inc = torch_include(a.torch_include)
    cuda = a.cuda_path or os.environ.get("CUDA_PATH") or "/usr/local/cuda"
    if inc and os.path.isdir(os.path.join(inc, "ATen")) and os.path.isfile(os.path.join(cuda, "include", "cuda_runtime.h")):
        with tempfile.TemporaryDirectory() as tmp:
            work = os.path.join(tmp, "aten")
            shutil.copytree(CORPUS, work)
            flags = ["-I" + inc, "-I" + os.path.join(inc, "torch", "csrc", "api", "include"),
                     "-I" + sysconfig.get_paths()["include"], "-I" + os.path.join(cuda, "include"),
                     "-std=c++17", "-DTORCH_EXTENSION_NAME=corpus", "-DTORCH_API_INCLUDE_EXTENSION_H"]
            db = [{"directory": work, "file": os.path.join(work, f),
                   "arguments": ["c++" if not f.endswith(".cu") else "nvcc", *flags, "-c", f]}
                  for f in sorted(os.listdir(work)) if f.endswith((".cpp", ".cu"))]
            with open(os.path.join(work, "compile_commands.json"), "w") as o:
                json.dump(db, o)
            results.append(judge("torch", want, run(a.cglint, ["--cuda-path", cuda, "-p", work], work)))
    else:
        print(f"torch  skipped: no PyTorch include folder ({inc or 'set CGLINT_TORCH_INCLUDE'}) or no CUDA toolkit at {cuda}")
    bad = [r for r in results if r[0] < a.min_recall or r[1]]
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
