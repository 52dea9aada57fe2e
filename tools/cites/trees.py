# SPDX-License-Identifier: MIT
"""The upstream trees and the places in them.

Repo (a git repository read with git itself) and find_repo; Site, a citation's place
resolved to a repository, ref and path, and the Resolver that resolves them; PyFile, a
Python file of a tree parsed once (pyfile), and the helpers that read its statements
(span, children, cover, qualname, where, message_of, similarity, ...).
"""
import ast
import difflib
import functools
import os
import re
import subprocess
from dataclasses import dataclass

from .packs import ENV, PLACES, SUBMODULE, Cite, Loc, Missing, parse_cite, tag_of, versions_in


# --- upstream trees ----------------------------------------------------------------------------

class Repo:
    """A bare or checked-out git repository, read with git itself; every answer is cached."""

    def __init__(self, name, git_dir):
        self.name, self.git_dir, self._memo = name, git_dir, {}

    def git(self, *args):
        r = subprocess.run(["git", "--git-dir", self.git_dir, *args], capture_output=True, text=True, errors="replace")
        return r.stdout if r.returncode == 0 else None

    def cached(self, key, fn):
        if key not in self._memo:
            self._memo[key] = fn()
        return self._memo[key]

    def sha(self, ref):
        return self.cached(("sha", ref), lambda: (self.git("rev-parse", "--verify", "-q", ref + "^{commit}") or "").strip() or None)

    def text(self, ref, path):
        return self.cached(("text", ref, path), lambda: self.git("show", f"{ref}:{path}"))

    def files(self, ref):
        return self.cached(("files", ref), lambda: set((self.git("ls-tree", "-r", "--name-only", ref) or "").splitlines()))

    def submodule(self, ref):
        m = re.search(r"commit ([0-9a-f]{40})", self.cached(("sub", ref), lambda: self.git("ls-tree", ref, SUBMODULE) or ""))
        return m.group(1) if m else None

    def renamed(self, old, new, path):
        """Where git's rename detection says `path` went between two refs, or None."""
        diff = self.cached(("renames", old, new), lambda: self.git("diff", "-M", "--name-status", "--diff-filter=R", old, new) or "")
        for line in diff.splitlines():
            parts = line.split("\t")
            if len(parts) == 3 and parts[1] == path:
                return parts[2]
        return None

    def grep(self, ref, needle, suffix):
        out = self.git("grep", "-l", "-F", "-e", needle, ref, "--", "*" + suffix) or ""
        return [line.split(":", 1)[1] for line in out.splitlines() if ":" in line]


def find_repo(name, given):
    """The git directory of one upstream: --NAME-git, $CGLINT_NAME_GIT, else the usual places."""
    for place in [given, os.environ.get(ENV[name])] + PLACES[name]:
        if not place:
            continue
        for d in (os.path.join(place, ".git"), place):
            if os.path.exists(os.path.join(d, "HEAD")) and os.path.isdir(os.path.join(d, "objects")):
                return Repo(name, d)
        if place in (given, os.environ.get(ENV[name])):
            raise Missing(f"no git repository at {place}")
    raise Missing(f"no {name} tree: give --{name}-git DIR or set {ENV[name]}")


# --- where a place is: repository, ref, path ---------------------------------------------------

@dataclass
class Site:
    """A place resolved: the tree and path it is in, or why it is not."""
    cite: Cite
    loc: Loc
    repo: Repo | None
    ref: str | None
    label: str                     # the ref as the report writes it
    path: str | None
    why: str = ""                  # why there is no tree or path
    doc: bool = False              # a line reference in a rule's doc text


def key_project(key):
    """('mcore'|'bridge'|None, spec) of a mirrors key such as "bridge >=0.3" or "cuda 13.0"."""
    m = re.match(r"(mcore|bridge)\s+(.+)$", key.strip())
    return (m.group(1), m.group(2)) if m else (None, key)


class Resolver:
    def __init__(self, repos):
        self.repos, self._all = repos, None

    def all_sites(self, cites):
        if self._all is None:
            self._all = [site for cite in cites for site in self.sites(cite)]
        return self._all

    def sites(self, cite):
        """Every (ref, path) a citation's places stand for."""
        project, spec = key_project(cite.key)
        out, prev = [], {}
        for loc in parse_cite(cite.text):
            if not project:
                out.append(Site(cite, loc, None, None, cite.key, loc.path, why="no tree for " + cite.key.split()[0]))
                continue
            for repo, ref, label in self.refs(project, spec, loc):
                path = self.path(repo, ref, loc.path, prev.get(repo.name)) if ref else None
                why = "" if path else (f"no ref {label}" if not ref else f"no file {loc.path} at {label}")
                out.append(Site(cite, loc, repo, ref, label, path, why))
                if path:
                    prev[repo.name] = path
        return out

    def refs(self, project, spec, loc):
        """[(repo, ref, label)] for a place: its pins, else each version of its key."""
        if loc.version:
            project, spec = loc.version
        into_mcore = project == "bridge" and loc.path.startswith("megatron/")
        repo = self.repos["mcore" if into_mcore else project]
        if loc.pins:
            return [(repo, repo.sha(p) and p, p) for p in loc.pins]
        pinned = re.fullmatch(r"main@([0-9a-f]{7,40})", spec)      # a development commit
        if pinned:
            return [(repo, repo.sha(pinned.group(1)) and pinned.group(1), spec)]
        out = []
        for v in versions_in(project, spec):
            tag = tag_of(project, v)
            name = f"main@{tag[:10]}" if v == "main" else tag
            if into_mcore:               # Bridge runs the Megatron Core its submodule pins
                sub = self.repos["bridge"].submodule(tag)
                out.append((repo, sub, f"{name}:{SUBMODULE}@{(sub or '?')[:10]}"))
            else:
                out.append((repo, tag if repo.sha(tag) else None, name))
        return out

    @staticmethod
    def path(repo, ref, path, prev):
        """The file a written path names: itself, else beside the previous path of the
        citation ("training/config.py" after src/megatron/bridge/utils/...), else the one
        file of the tree ending so."""
        files = repo.files(ref)
        if path in files:
            return path
        d = os.path.dirname(prev or "")
        while d:
            if f"{d}/{path}" in files:
                return f"{d}/{path}"
            d = os.path.dirname(d)
        ends = sorted(f for f in files if f.endswith("/" + path))
        if len(ends) > 1 and prev:           # the one nearest the previous path
            common = [len(os.path.commonprefix([f, prev])) for f in ends]
            ends = [f for f, c in zip(ends, common) if c == max(common)]
        ends.sort(key=lambda f: (f.count("/"), f))           # then the shallowest
        return ends[0] if ends else None


# --- Python structure --------------------------------------------------------------------------

class PyFile:
    """A Python file parsed once: statements, parents, the checks it makes."""

    def __init__(self, text):
        self.text, self.lines = text, text.splitlines()
        try:
            self.tree = ast.parse(text)
        except (SyntaxError, ValueError):
            self.tree = None
            return
        for node in ast.walk(self.tree):
            for child in ast.iter_child_nodes(node):
                child.parent = node
        self._dumps = None

    def trim(self, a, b):
        """The range without its leading and trailing blank and comment lines."""
        def blank(n):
            s = self.lines[n - 1].strip()
            return not s or s.startswith("#")
        while a <= b and blank(a):
            a += 1
        while b >= a and blank(b):
            b -= 1
        while 0 < b < len(self.lines) and re.fullmatch(r"[)\]}]+[,:]?", self.lines[b].strip()):
            b += 1                             # a statement's closing bracket is part of it
        return a, b

    @functools.cached_property
    def checks(self):
        """Every raise, assert and warning call, with the message it carries."""
        return [(node, message_of(node)) for node in ast.walk(self.tree)
                if isinstance(node, (ast.Raise, ast.Assert)) or (isinstance(node, ast.Call) and WARN_RE.search(call_name(node)))]

    def symbol(self, name):
        """The def, class or field a dotted name names ("TransformerConfig.finalize")."""
        parts, scope = name.split("."), [self.tree]
        for i, part in enumerate(parts):
            hits = [n for s in scope for n in getattr(s, "body", []) if defines(n, part)]
            if not hits and i == 0:
                hits = [n for n in ast.walk(self.tree) if defines(n, part)]
            hits.sort(key=lambda n: not is_def(n))          # a def before a field of that name
            if not hits:
                return None
            scope = hits
        return scope[0]

    def dumps(self):
        """Every statement by its structure (no positions): the anchor index."""
        if self._dumps is None:
            self._dumps = {}
            for node in ast.walk(self.tree):
                if isinstance(node, ast.stmt):
                    self._dumps.setdefault(ast.dump(node), []).append(node)
        return self._dumps


@functools.lru_cache(maxsize=None)
def pyfile(repo, ref, path):
    """A file of a tree, parsed once however many citations name it."""
    return PyFile(repo.text(ref, path) or "")


WARN_RE = re.compile(r"(?i)warn|log_single_rank|print_rank_0|logger\.error")


def call_name(node):
    f = node.func
    if isinstance(f, ast.Attribute):
        return (f.value.id + "." if isinstance(f.value, ast.Name) else "") + f.attr
    return getattr(f, "id", "")


def defines(node, name):
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return node.name == name
    if isinstance(node, ast.AnnAssign):
        return getattr(node.target, "id", None) == name
    if isinstance(node, ast.Assign):
        return any(getattr(t, "id", None) == name for t in node.targets)
    return False


def span(node):
    """A statement's lines, its decorators included."""
    first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    return first, node.end_lineno


def children(node):
    """A compound statement's own statements, in order."""
    kids = []
    for name in ("body", "orelse", "finalbody"):
        kids += [k for k in getattr(node, name, []) if isinstance(k, ast.stmt)]
    for h in getattr(node, "handlers", []) + getattr(node, "cases", []):
        kids += h.body
    return sorted(kids, key=lambda k: k.lineno)


@dataclass
class Cover:
    nodes: list            # the statements the range stands for
    cut: ast.stmt | None   # a statement the range starts or ends inside of
    partial: bool = False  # the range is part of one statement (its header, some lines)


def cover(stmts, a, b):
    """The statements of a block that lines a..b cite. A range may be part of one statement
    (an `if` and its first statements); one that starts inside a statement, or ends inside one
    other than at a statement boundary of it, cuts it."""
    hits = [s for s in stmts if span(s)[0] <= b and span(s)[1] >= a]
    if len(hits) == 1:
        s0, s1 = span(hits[0])
        kids = children(hits[0])
        if s0 <= a and b <= s1 and (s0, s1) != (a, b) and not (a == hits[0].lineno and b == s1):
            if not kids:                       # a line of a long call or assert
                return Cover(hits, None, True)
            if a >= span(kids[0])[0]:
                inner = cover(kids, a, b)
                if inner.nodes or inner.cut:
                    return inner
            return Cover(hits, None if ends_cleanly(hits[0], b) else hits[0], True)
    cut = None
    for i, s in enumerate(hits):
        starts = a <= span(s)[0] or a == s.lineno            # a def cited from its def line
        ends = span(s)[1] <= b or (i == len(hits) - 1 and starts and not is_def(s) and ends_cleanly(s, b))
        if not (starts and ends):
            cut = cut or s
    return Cover(hits, cut)


def ends_cleanly(s, b):
    """Whether lines up to b stop at a boundary inside s: after its header, after whole
    statements of its body, or on the first line of one (the call a citation points at)."""
    s0, s1 = span(s)
    kids = children(s)
    if b >= s1 or not kids or b < span(kids[0])[0]:
        return True
    for k in kids:
        k0, k1 = span(k)
        if k0 <= b <= k1:
            return b == k1 or b == k0 or (bool(children(k)) and not is_def(k) and ends_cleanly(k, b))
    return True


def is_def(node):
    return isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))


def literal(e):
    """The text of a string expression; formatted parts become a space."""
    if isinstance(e, ast.Constant) and isinstance(e.value, str):
        return e.value
    if isinstance(e, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else " " for v in e.values)
    if isinstance(e, ast.BinOp) and isinstance(e.op, (ast.Add, ast.Mod)):
        return literal(e.left) + literal(e.right)
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr == "format":
        return literal(e.func.value)
    return ""


def message_of(node):
    if isinstance(node, ast.Assert):
        return literal(node.msg) if node.msg else ""
    call = node.exc if isinstance(node, ast.Raise) else node
    return " ".join(literal(a) for a in getattr(call, "args", [])).strip()


def words(s):
    return re.findall(r"[a-z0-9_]+", re.sub(r"\{[^}]*\}", " ", s.lower()))


def similarity(x, y):
    return difflib.SequenceMatcher(None, words(x), words(y)).ratio() if x and y else 0.0


def is_values(node):
    """A list of allowed values: NAMES = [...] of constants, or an argparse choices=[...]."""
    value = getattr(node, "value", None)
    if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(value, (ast.List, ast.Tuple, ast.Set, ast.Dict)):
        elts = value.keys if isinstance(value, ast.Dict) else value.elts
        return all(isinstance(e, ast.Constant) for e in elts)
    return isinstance(value, ast.Call) and any(k.arg == "choices" for k in value.keywords)


def enclosing(node, kinds):
    while node is not None and not isinstance(node, kinds):
        node = getattr(node, "parent", None)
    return node


def qualname(node):
    names = []
    while node is not None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
        node = getattr(node, "parent", None)
    return ".".join(reversed(names))


def where(node):
    """How a report names a statement: its lines and the function holding it."""
    s0, s1 = span(node)
    fn = qualname(node if isinstance(node, (ast.FunctionDef, ast.ClassDef)) else getattr(node, "parent", None))
    return f"L{s0}" + (f"-{s1}" if s1 != s0 else "") + (f" ({fn})" if fn else "")


def citable(check):
    """What to cite for a raise or assert: the `if` around it when that if holds only it."""
    parent = getattr(check, "parent", None)
    if isinstance(parent, ast.If) and parent.body == [check] and not parent.orelse:
        return parent
    return check if isinstance(check, ast.stmt) else enclosing(check, ast.stmt)
