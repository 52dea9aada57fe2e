#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The source tree's layering, checked: lint/ has one folder per stage of the data flow, and a
file may use only its own stage and the stages below it. A stage may hold sub-stages (front/py):
outside one, only the headers of its interface may be included.

usage: layers.py LINT_DIR [BUILD_DIR]

- Includes: every #include "..." in lint/<stage>/ must name a header of its own stage or a
  lower one; third-party parsers are included only by the files named in THIRD_PARTY.
- Calls (with BUILD_DIR): the object files' symbols (nm) give which module calls which; no
  call may go to a higher stage, and no two modules may call each other, directly or round a
  longer circle, except inside a group (GROUPS): modules that are one recursive algorithm split
  over files call each other freely, and the rest of the tree calls them only through the
  functions their face (its headers) declares.
Before judging the real tree it judges a small made-up one with one fault of each kind and
fails unless it finds them all, so a checker that finds nothing cannot pass.
"""
import collections
import os
import re
import subprocess
import sys
import tempfile

# The stages, lowest first. This list is the one place the order is written.
STAGES = ["base", "input", "config", "front", "source", "report", "probe", "run", "suggest", "lsp", "cli"]

# Sub-stages: a folder inside a stage that is a front-end of its own. Files outside it may include
# only the headers named here, its interface; the rest are private to it.
SUBSTAGES = {"front/py": {"fe_py.h", "py_mod.h", "py_text.h", "py_bridge.h"}}
# Groups: one module in several files (a recursive evaluator), whose files may call each other in
# circles; a file outside a group calls into it only through the functions its face declares.
GROUPS = {
    "the Python evaluator": {
        "modules": {"front/py/fe_py", "front/py/py_walk", "front/py/py_eval", "front/py/py_call", "front/py/py_flow",
                    "front/py/py_obj", "front/py/py_comp", "front/py/py_class", "front/py/py_bridge_reg",
                    "front/py/py_bridge_auto"},
        "face": ["front/py/fe_py.h"],
    },
}
# Third-party headers (by prefix) and the only files allowed to include them.
THIRD_PARTY = {
    "yaml.h": {"input/fe_yaml.c"},
    "git2.h": {"input/ignore.c"},
    "git2/": {"input/ignore.c"},
    "clang-c/": {"source/fe_clang_lib.h"},
    "tree_sitter/": {"front/py/fe_py.c", "front/py/py_walk.c", "front/py/fe_py_lit.c", "front/py/fe_py_lit.h", "front/py/fe_py_mod.c",
                     "front/py/fe_py_mod.h", "front/py/py_fn.h", "front/py/py_node.h", "front/py/py_session.h", "front/py/py_eval.c", "front/py/py_call.c", "front/py/py_class.c",
                     "front/py/py_flow.c"},
}

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]', re.M)


def stage_of(rel):
    top = rel.split("/", 1)[0]
    return top if top in STAGES else None


def placed(rel):
    """A file directly in a stage folder, or in one of its sub-stages."""
    parts = rel.split("/")
    return (len(parts) == 2 and parts[0] in STAGES) or (len(parts) == 3 and "/".join(parts[:2]) in SUBSTAGES)


def private_to(rel, target):
    """The sub-stage whose private header 'target' is, where 'rel' is outside it; else None."""
    sub = target.rsplit("/", 1)[0]
    if sub in SUBSTAGES and not rel.startswith(sub + "/") and target.rsplit("/", 1)[1] not in SUBSTAGES[sub]:
        return sub
    return None


def check_includes(lint):
    faults = []
    for dirpath, dirs, files in os.walk(lint):
        dirs[:] = [d for d in dirs if d != "shim"]      # the scanner's stand-in system headers
        for name in sorted(files):
            if not name.endswith((".c", ".h", ".cu", ".def")):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, lint).replace(os.sep, "/")
            own = stage_of(rel)
            if own is None or not placed(rel):
                faults.append(f"lint/{rel}: not in a stage folder ({', '.join(STAGES)})")
                continue
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            for m in INCLUDE.finditer(text):
                kind, inc = m.group(1), m.group(2)
                line = text.count("\n", 0, m.start()) + 1
                for prefix, allowed in THIRD_PARTY.items():
                    if inc.startswith(prefix) and rel not in allowed:
                        faults.append(f"lint/{rel}:{line}: includes {inc}, which only {', '.join(sorted(allowed))} may")
                if kind != '"':
                    continue
                target = inc if "/" in inc else f"{rel.rsplit('/', 1)[0]}/{inc}"
                st = stage_of(target)
                sub = private_to(rel, target)
                if sub:
                    faults.append(f"lint/{rel}:{line}: includes \"{inc}\", private to {sub} "
                                  f"(its interface: {', '.join(sorted(SUBSTAGES[sub]))})")
                if st is None:
                    faults.append(f"lint/{rel}:{line}: includes \"{inc}\", which is in no stage")
                elif STAGES.index(st) > STAGES.index(own):
                    faults.append(f"lint/{rel}:{line}: includes \"{inc}\": stage {st} is above {own}")
    return faults


def module_graph(build):
    """module -> {module: [symbols]} from the object files' defined and undefined symbols."""
    objs = []
    for dirpath, _, files in os.walk(build):
        objs += [os.path.join(dirpath, f) for f in files
                 if f.endswith(".c.o") and f"{os.sep}lint{os.sep}" in dirpath]
    defs, uses = {}, collections.defaultdict(set)
    for o in objs:
        rel = o.replace(os.sep, "/").split("/lint/")[-1]
        if not placed(rel):
            continue
        mod = rel[:-len(".c.o")]
        out = subprocess.run(["nm", o], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            f = line.split()
            if len(f) == 3 and f[1] in "TDRB":
                defs[f[2]] = mod
            elif len(f) == 2 and f[0] == "U":
                uses[mod].add(f[1])
    graph = collections.defaultdict(lambda: collections.defaultdict(list))
    for mod, syms in uses.items():
        for s in sorted(syms):
            if s in defs and defs[s] != mod:
                graph[mod][defs[s]].append(s)
    return graph, len({m for m in defs.values()})


def face_symbols(lint, group):
    """The function names a group's face headers declare."""
    names = set()
    for h in group["face"]:
        with open(os.path.join(lint, h), encoding="utf-8") as f:
            names |= set(re.findall(r"\b([A-Za-z_]\w*)\s*\(", f.read()))
    return names


def check_calls(graph, groups):
    """'groups': name -> (modules, the symbols its face declares)."""
    faults = []
    group_of = {m: name for name, (mods, _) in groups.items() for m in mods}
    for a in sorted(graph):
        for b, syms in sorted(graph[a].items()):
            if STAGES.index(b.split("/")[0]) > STAGES.index(a.split("/")[0]):
                faults.append(f"{a} calls {b} ({', '.join(syms[:3])}): stage {b.split('/')[0]} is above {a.split('/')[0]}")
            g = group_of.get(b)
            behind = [s for s in syms if s not in groups[g][1]] if g and group_of.get(a) != g else []
            if behind:
                faults.append(f"{a} calls {b} ({', '.join(behind[:3])}), inside {g}, past its face")
    # a group is one node for the circles: inside it they are allowed, through it they are not
    graph = {group_of.get(a, a): {group_of.get(b, b): s for b, s in out.items() if group_of.get(b, b) != group_of.get(a, a)}
             for a, out in graph.items()}
    # circles: strongly connected components of more than one module (Tarjan)
    index, low, on, stack, comps = {}, {}, set(), [], []
    nodes = sorted(set(graph) | {b for a in graph for b in graph[a]})

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, {})):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    for v in nodes:
        if v not in index:
            visit(v)
    for c in comps:
        faults.append("modules call each other in a circle: " + " <-> ".join(c))
    return faults


def self_test():
    """A made-up tree with one fault of each kind; every one must be found."""
    with tempfile.TemporaryDirectory() as d:
        for rel, text in {
            "base/a.c": '#include "config/b.h"\n',            # an include that runs up
            "config/b.h": "",
            "front/c.c": "#include <clang-c/Index.h>\n",       # a parser outside its file
            "stray.c": "",                                     # a file in no stage
            "front/py/inner.h": "",
            "run/d.c": '#include "front/py/inner.h"\n',      # a sub-stage's private header
        }.items():
            os.makedirs(os.path.dirname(os.path.join(d, rel)), exist_ok=True)
            with open(os.path.join(d, rel), "w") as f:
                f.write(text)
        found = check_includes(d)
    graph = {"base/x": {"run/y": ["y_f"]}, "run/y": {"run/z": ["z_f"]}, "run/z": {"run/y": ["y_g"]},
             "front/g1": {"front/g2": ["g2_f"]}, "front/g2": {"front/g1": ["g1_f"]},   # a group's own circle
             "front/o": {"front/g1": ["g1_face", "g1_f"]}}                             # past the group's face
    found += check_calls(graph, {"group G": ({"front/g1", "front/g2"}, {"g1_face"})})
    want = ["stage config is above base", "only source/fe_clang_lib.h", "not in a stage folder",
            "private to front/py", "stage run is above base", "run/y <-> run/z", "(g1_f), inside group G, past its face"]
    missing = [w for w in want if not any(w in f for f in found)]
    if missing or len(found) != len(want):
        print("layers.py: the self-test expected faults it did not find, or found others:", missing, found)
        return False
    return True


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__)
        return 2
    if not self_test():
        return 1
    lint = sys.argv[1]
    faults = check_includes(lint)
    checked = "includes"
    if len(sys.argv) == 3:
        graph, n = module_graph(sys.argv[2])
        if n < 20:
            faults.append(f"only {n} modules' objects found under {sys.argv[2]}: is it a build folder?")
        faults += check_calls(graph, {name: (g["modules"], face_symbols(lint, g)) for name, g in GROUPS.items()})
        checked += f" and the calls between {n} modules"
    for f in faults:
        print(f)
    print(f"layers: {len(faults)} faults in {checked}; stages {' < '.join(STAGES)}")
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main())
