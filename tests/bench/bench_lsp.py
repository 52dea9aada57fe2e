#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Time the language server's re-check of an edited file against a cold check.

usage: bench_lsp.py CGLINT FILE... [--edits N] [--runs R] [-- CGLINT_OPTIONS...]

Cold: `cglint [OPTIONS] FILE`, one process, R times (a one-file run makes no preamble).
Server: one `cglint lsp [OPTIONS]`; FILE is opened (its first check also makes the precompiled
preamble the edits reuse; a Python recipe's, the modules its imports reach), then edited N
times, each edit a full-text change of one comment line ('//' in C/C++/CUDA, '#' otherwise);
each check is timed from the didChange sent to the publishDiagnostics of that version received.
Prints medians in ms and the ratio re-check / cold per file. Asserts nothing about times.
"""
import json
import os
import statistics
import subprocess
import sys
import time


def frame(msg):
    body = json.dumps(msg).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def read_msg(f):
    length = None
    while True:
        line = f.readline()
        if not line:
            raise SystemExit("bench_lsp.py: the server closed its output")
        line = line.strip()
        if not line:
            break
        k, _, v = line.partition(b":")
        if k.lower() == b"content-length":
            length = int(v)
    return json.loads(f.read(length))


def wait_publish(p, uri, version):
    while True:
        m = read_msg(p.stdout)
        if m.get("method") == "textDocument/publishDiagnostics":
            prm = m["params"]
            if prm["uri"] == uri and prm.get("version") == version:
                return prm["diagnostics"]


def server_times(cglint, opts, path, edits):
    p = subprocess.Popen([cglint, "lsp", *opts], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL)
    send = lambda m: (p.stdin.write(frame(m)), p.stdin.flush())
    uri = "file://" + os.path.abspath(path)
    text = open(path, encoding="utf-8", errors="replace").read()
    ext = os.path.splitext(path)[1]
    lang = {".py": "python", ".sh": "shellscript", ".yaml": "yaml", ".yml": "yaml"}.get(ext, "cuda")
    comment = "//" if lang == "cuda" else "#"
    send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
          "params": {"processId": os.getpid(), "rootUri": None, "capabilities": {}}})
    while read_msg(p.stdout).get("id") != 1:
        pass
    send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    t = time.perf_counter()
    send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
          "params": {"textDocument": {"uri": uri, "languageId": lang, "version": 1, "text": text}}})
    first_diags = wait_publish(p, uri, 1)
    first = time.perf_counter() - t
    times, same = [], True
    for k in range(edits):
        v = k + 2
        t = time.perf_counter()
        send({"jsonrpc": "2.0", "method": "textDocument/didChange",
              "params": {"textDocument": {"uri": uri, "version": v},
                         "contentChanges": [{"text": text + "%s edit %d\n" % (comment, k)}]}})
        d = wait_publish(p, uri, v)
        times.append(time.perf_counter() - t)
        same &= [x["code"] for x in d] == [x["code"] for x in first_diags]
    send({"jsonrpc": "2.0", "id": 2, "method": "shutdown", "params": None})
    while read_msg(p.stdout).get("id") != 2:
        pass
    send({"jsonrpc": "2.0", "method": "exit", "params": None})
    p.stdin.close()
    p.wait(timeout=30)
    return first, times, first_diags, same


def cold_times(cglint, opts, path, runs):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run([cglint, *opts, "--format", "json", path], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - t)
    return times


def main(argv):
    opts = []
    if "--" in argv:
        opts = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    edits, runs, files = 10, 5, []
    it = iter(argv[1:])
    for a in it:
        if a == "--edits":
            edits = int(next(it))
        elif a == "--runs":
            runs = int(next(it))
        else:
            files.append(a)
    if not files:
        raise SystemExit(__doc__)
    cglint = argv[0]
    ms = lambda s: "%.1f" % (s * 1000)
    print("%-32s %9s %9s %9s %7s  %s" % ("file", "cold ms", "open ms", "edit ms", "ratio", "findings"))
    worst = 0.0
    for f in files:
        cold = statistics.median(cold_times(cglint, opts, f, runs))
        first, edit_times, diags, same = server_times(cglint, opts, f, edits)
        edit = statistics.median(edit_times)
        worst = max(worst, edit / cold)
        codes = " ".join(sorted({d["code"] for d in diags})) or "-"
        print("%-32s %9s %9s %9s %6.2fx  %s%s" % (os.path.basename(f)[:32], ms(cold), ms(first), ms(edit),
                                                 edit / cold, codes, "" if same else " (edits changed them)"))
    print("worst re-check / cold: %.2fx" % worst)


if __name__ == "__main__":
    main(sys.argv[1:])
