#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""citecheck: check the upstream citations of cglint's rule packs against the real code.

Every rule and normalization step of rules/*.yaml names the upstream lines it mirrors in a
`mirrors:` map ("mcore 0.19: megatron/core/transformer/transformer_config.py:2373-2375"). This
tool finds each in the upstream git trees (a tag per version) and says whether the cited lines
hold what the rule is about (`check`), or where that code is at another ref (`moves`).
tools/README.md has the details.

usage: citecheck.py check [--all]
       citecheck.py moves [--from REF --to REF] [--rewrite | --add KEY]
exit status: 0 clean, 1 findings, 2 usage error or a missing tree (or --skip-status N)
"""
import argparse
import ast
import difflib
import functools
import glob
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The versions the packs name, oldest first, and the tag each stands for. "dev" is the Megatron
# Core development branch Bridge 0.2 ships (lint/config/target.c); "main" is never in a range.
RELEASES = {
    "mcore": [("0.15", "core_v0.15.0"), ("dev", "core_dev_r0.15.0"), ("0.16", "core_v0.16.0"),
              ("0.17", "core_v0.17.0"), ("0.18", "core_v0.18.0"), ("0.19", "core_v0.19.0")],
    "bridge": [("0.2", "v0.2.0"), ("0.3", "v0.3.0"), ("0.4", "v0.4.0"), ("0.5", "v0.5.0"), ("0.6", "v0.6.0")],
}
PLACES = {
    "mcore": ["/work/.mirror/NVIDIA+Megatron-LM/repo", "../Megatron-LM", "/tmp/Megatron-LM"],
    "bridge": ["/work/.mirror/NVIDIA-NeMo+Megatron-Bridge/repo", "../Megatron-Bridge", "/tmp/Megatron-Bridge"],
}
ENV = {"mcore": "CGLINT_MCORE_GIT", "bridge": "CGLINT_BRIDGE_GIT"}
# "main" in a key is the snapshot the development targets stand for (lint/config/target.c,
# upstream-snapshots.md); move these with them. "main@2a75ac12" names its commit itself.
MAIN = {"mcore": "d98e8a64ddf34856e74b24714e3bedb2f5a39553", "bridge": "067f987df03b8355b03192d88d70f1709fedf51a"}
SUBMODULE = "3rdparty/Megatron-LM"         # where Bridge pins the Megatron Core it runs
DEFAULT_PAIRS = [("mcore", "core_v0.19.0", "main"), ("bridge", "v0.6.0", "main")]
TEXT_SUFFIXES = (".md", ".mdx", ".rst", ".txt")
SAME = 0.6          # a message or statement this similar (0..1) is the same one, reworded
EXACT = 0.9         # ... this similar, the same one


class Usage(Exception):
    """A usage error: exit status 2."""


class Missing(Usage):
    """No tree, or no PyYAML: exit status 2, or --skip-status."""


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


def tag_of(project, version):
    return dict(RELEASES[project]).get(version, MAIN[project] if version == "main" else None)


def versions_in(project, spec):
    """The versions a key or a rule's range names: "0.19", "dev", ">=0.3", ">=0.4 <0.6"."""
    names = [v for v, _ in RELEASES[project]]
    spec = spec.replace("0.15-dev", "dev").strip().strip('"')
    if spec in names or spec == "main":
        return [spec]
    keep = list(names) if re.fullmatch(r"((>=|<=|>|<|==)?\s*(dev|\d+\.\d+)\s*)+", spec) else []
    for op, v in re.findall(r"(>=|<=|>|<|==)?\s*(dev|\d+\.\d+)", spec):
        if v not in names:
            return []
        i = names.index(v)
        test = {">=": lambda j: j >= i, ">": lambda j: j > i, "<=": lambda j: j <= i, "<": lambda j: j < i}.get(op, lambda j: j == i)
        keep = [n for n in keep if test(names.index(n))]
    return keep


# --- the packs ---------------------------------------------------------------------------------

@dataclass
class Cite:
    """One `mirrors:` entry: its key ("mcore 0.19") and text, and where it is in its pack."""
    pack: str                  # as the report names it
    line: int
    entry: dict
    section: str
    key: str
    text: str
    offset: int | None         # where the text starts in the pack file (None: quoted with escapes)
    file: str = ""             # the pack file's path

    @property
    def id(self):
        return self.entry.get("id") or "?"


def plain(node):
    import yaml
    if isinstance(node, yaml.ScalarNode):
        return node.value
    if isinstance(node, yaml.SequenceNode):
        return [plain(n) for n in node.value]
    return {plain(k): plain(v) for k, v in node.value}


def load_packs(rules_dir):
    """Every citation of every pack, and every entry (rules and steps), in pack order."""
    try:
        import yaml
    except ImportError:
        raise Missing("needs PyYAML (Debian: python3-yaml)")
    packs = sorted(glob.glob(os.path.join(rules_dir, "*.yaml")))
    if not packs:
        raise Usage(f"no rule packs in {rules_dir}")
    cites, entries = [], []
    for pack in packs:
        with open(pack, encoding="utf-8") as f:
            source = f.read()
        try:
            root = yaml.compose(source)   # nodes, not values: they know their line
        except yaml.YAMLError as e:
            raise Usage(f"{shown(pack)}: {e}")
        for sec_key, sec in (root.value if isinstance(root, yaml.MappingNode) else []):
            for node in (sec.value if isinstance(sec, yaml.SequenceNode) else []):
                if isinstance(node, yaml.MappingNode):
                    entry = plain(node)
                    entry["_section"], entry["_pack"], entry["_file"] = sec_key.value, shown(pack), pack
                    entry["_doc_line"] = doc_line(node)
                    entries.append(entry)
                    cites += entry_cites(entry, source, node)
    return cites, entries


def doc_line(node):
    """The line a mapping's `doc: |` text starts on (the line after the indicator)."""
    for k, v in node.value:
        if k.value == "doc":
            return v.start_mark.line + (2 if v.style in ("|", ">") else 1)
    return 0


def shown(path):
    """A pack's path as the report writes it: from the project root when it is inside."""
    rel = os.path.relpath(os.path.abspath(path), ROOT)
    return path if rel.startswith("..") else rel


def entry_cites(entry, source, node):
    import yaml
    found = [v for k, v in node.value if k.value == "mirrors" and isinstance(v, yaml.MappingNode)]
    out = []
    for k, v in (found[0].value if found else []):
        start = v.start_mark.index + (1 if source[v.start_mark.index] in "\"'" else 0)
        offset = start if source[start:start + len(v.value)] == v.value else None
        out.append(Cite(entry["_pack"], v.start_mark.line + 1, entry, entry["_section"], k.value, v.value, offset,
                        entry["_file"]))
    return out


# --- reading a citation ------------------------------------------------------------------------
# A citation is prose around places: "path:12-20", more lines of the same file (", 30-34",
# ":302", "L870"), refs ("@cba6b0ed", "(v0.3.0; v0.3.1 L213-217)", "(MCore submodule cd4afffa)",
# "in bridge 0.3 at path:..."), a symbol ("path:_apply_cfgs", "path (parse_args; ...)") and
# quoted code ("(`if rejection_func(result):` ...)"). Clauses end at ';'.

PATH = r"(?<![\w/.-])((?:[\w.-]+/)*[\w-][\w.-]*\.(?:py|md|mdx|rst|sh|yaml|yml|txt|h|c|cpp|cu|json|toml))\b"
RANGE = r"(\d+(?:-\d+)?)"
HEX = r"([0-9a-f]{7,40})\b"
VERSION = r"\b(?i:(bridge|megatron[- ]bridge|mcore|megatron core))\s+(dev|\d+\.\d+)\b(?!\.\d)"
TOP_RE = re.compile(PATH + r"(?::" + RANGE + r"(?![\d.])|:([A-Za-z_]\w*))?"    # path[:lines|:symbol]
                    r"|(?<![\w.]):" + RANGE + r"(?![\d.])"                    # :302
                    r"|(?:,|\band\b)\s*" + RANGE + r"(?![\d.%])"             # , 1413-1420
                    r"|\bL" + RANGE + r"\b"                                   # L870
                    r"|@" + HEX + r"|(;)|" + VERSION)
ALT_RE = re.compile(r"v(\d+\.\d+\.\d+)\s+L?" + RANGE + r"\b|(?<![\w.:])" + RANGE + r"\s+@" + HEX)
INNER_RE = re.compile(PATH + r"(?::" + RANGE + r")?(?:\s+@" + HEX + r")?"    # module.py:171-173 [@commit]
                      r"|(?:,|\band\b)\s*" + RANGE + r"(?![\d.%])"           # , 1065 (of that path)
                      r"|\bL" + RANGE + r"\b"                                 # L870 (of the cited file)
                      r"|(?<![\w.:-])(\d+-\d+)(?![\d.])")                    # MLA 191-192 (the same)


@dataclass
class Loc:
    """One place a citation names: a path and at most one line range, or a symbol."""
    path: str
    lines: tuple | None = None
    span: tuple | None = None        # where the range is in the citation text (for --rewrite)
    role: str = "main"               # main; alt: the same code at another ref; secondary
    pins: list = field(default_factory=list)      # refs written beside it; else the key's
    version: tuple | None = None     # (project, version) written beside it
    symbol: str | None = None
    quotes: list = field(default_factory=list)


def parse_range(s):
    a, _, b = s.partition("-")
    return (int(a), int(b or a))


def split_parens(text):
    """[(is_paren, start, end)]: top-level pieces and outermost parentheses, in order. Brackets
    inside `code` or 'quotes' do not count; an apostrophe inside a word opens no quote."""
    out, depth, start, quote = [], 0, 0, None
    for i, ch in enumerate(text):
        if quote:
            if ch == quote and (ch == "`" or i + 1 == len(text) or not text[i + 1].isalnum()):
                quote = None
        elif ch == "`" or (ch == "'" and (i == 0 or text[i - 1] in " (") and text[i + 1:i + 2] not in ("", " ")):
            quote = ch
        elif ch == "(":
            if depth == 0:
                out.append((False, start, i))
                start = i
            depth += 1
        elif ch == ")" and depth:
            depth -= 1
            if depth == 0:
                out.append((True, start, i + 1))
                start = i + 1
    out.append((depth > 0, start, len(text)))
    return [p for p in out if p[2] > p[1]]


def project_of(word):
    return "bridge" if "bridge" in word.lower() else "mcore"


def parse_cite(text):
    """The places a citation text names."""
    locs, clause, pins, owner, version, last_pin = [], [], [], None, None, False
    for is_paren, start, end in split_parens(text):
        piece = text[start:end]
        if is_paren:
            if owner:
                locs += parse_paren(piece, start, owner)
            continue
        for m in TOP_RE.finditer(piece):
            g, loc = m.groups(), None
            if g[0]:
                loc = Loc(g[0], version=version, symbol=g[2])
                if g[1]:
                    loc.lines, loc.span = parse_range(g[1]), (start + m.start(2), start + m.end(2))
            elif owner and (g[3] or g[4]):
                i = 4 if g[3] else 5
                loc = Loc(owner.path, parse_range(m.group(i)), (start + m.start(i), start + m.end(i)), version=owner.version)
            elif owner and g[5]:
                locs.append(Loc(owner.path, parse_range(g[5]), (start + m.start(6), start + m.end(6)), "secondary",
                                list(owner.pins), owner.version))
            elif g[6]:                       # @commit: the clause's ref ("@a and @b": both)
                pins = pins + [g[6]] if last_pin else [g[6]]
                for c in clause:
                    if c.path == owner.path and (not c.pins or last_pin):
                        c.pins = list(pins)
            elif g[7]:
                clause, pins, version = [], [], None
            elif g[8]:
                version = (project_of(g[8]), g[9])
            last_pin = bool(g[6])
            if loc:
                loc.pins = list(pins) if owner and loc.path == owner.path else []
                locs.append(loc)
                clause.append(loc)
                owner = loc
    return locs


def parse_paren(piece, start, owner):
    """What a parenthesis after a place says about it: the refs it holds at ("v0.3.0", "MCore
    submodule cd4afffa", "MCore 0.19"), the same code at other refs ("v0.3.1 L213-217",
    "1488-1491 @0d8e0714"), more lines ("L870", "module.py:171-173", "MLA 191-192"), the
    symbol holding the lines ("(_apply_cfgs)"), quoted code ("`if rejection_func(result):`")."""
    body, base, locs = piece[1:-1], start + 1, []
    lead = re.match(r"\s*(v\d+\.\d+\.\d+(?:\s*,\s*v\d+\.\d+\.\d+)*)\s*(?:[;:,]|$)", body)
    if lead:
        owner.pins = ["v" + t for t in re.findall(r"v(\d+\.\d+\.\d+)", lead.group(1))]
    sub = re.search(r"submodule\s+" + HEX, body)
    if sub:
        owner.pins = [sub.group(1)]
    ver = re.match(r"\s*" + VERSION, body)
    if ver:
        owner.version = (project_of(ver.group(1)), ver.group(2))
    sym = re.match(r"\s*([A-Za-z_][\w.]*)\s*(?=[;:),(]|$)", body)
    if sym and not re.fullmatch(r"v\d.*", sym.group(1)):
        owner.symbol = owner.symbol or sym.group(1)
    owner.quotes += re.findall(r"`([^`]{6,})`", body)
    owner.quotes += re.findall(r"(?:^|(?<=[\s(]))'([^']{12,}?)'(?=[\s),;.:]|$)", body)
    taken = []
    for m in ALT_RE.finditer(body):
        i, pin = (2, "v" + m.group(1)) if m.group(1) else (3, m.group(4))
        locs.append(Loc(owner.path, parse_range(m.group(i)), (base + m.start(i), base + m.end(i)), "alt", [pin],
                        owner.version, owner.symbol, owner.quotes))
        taken.append(m.span())
    inner = None
    for m in INNER_RE.finditer(body):
        if any(a <= m.start() < b for a, b in taken):
            continue
        if m.group(1):
            pins = [m.group(3)] if m.group(3) else list(owner.pins) if m.group(1) == owner.path else []
            inner = Loc(m.group(1), role="secondary", pins=pins, version=owner.version)
            if m.group(2):
                inner.lines, inner.span = parse_range(m.group(2)), (base + m.start(2), base + m.end(2))
            locs.append(inner)
            continue
        i = next(i for i in (4, 5, 6) if m.group(i))
        if i == 4 and not inner:
            continue
        path, pins = (inner.path, inner.pins) if i == 4 else (owner.path, owner.pins)
        locs.append(Loc(path, parse_range(m.group(i)), (base + m.start(i), base + m.end(i)), "secondary", list(pins), owner.version))
    return locs


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


# --- check: do the cited lines hold what the rule is about? -----------------------------------

class Checker:
    def __init__(self, entries, sites):
        self.rules = [e for e in entries if e["_section"] == "rules" and e.get("message")]
        self.sites = sites

    def check(self, site):
        """[finding, ...] for one resolved place; [] when it holds."""
        text = site.repo.text(site.ref, site.path)
        lines = text.splitlines()
        loc, out = site.loc, []
        py = pyfile(site.repo, site.ref, site.path) if site.path.endswith(".py") else None
        if py and py.tree is None:
            py = None
        if loc.symbol and py and not loc.lines and loc.role == "main" and re.search(r"[_.A-Z]", loc.symbol):
            if re.search(r"\b" + re.escape(loc.symbol.split(".")[-1]) + r"\b", text) is None:
                out.append(("symbol", f"{loc.symbol} is not in the file"))
        if not loc.lines:
            return out
        a, b = loc.lines
        if a < 1 or b < a or b > len(lines):
            return out + [("range", f"L{a}-{b} is out of the file ({len(lines)} lines)")]
        if not py:
            if not any(line.strip() for line in lines[a - 1:b]):
                return out + [("range", "the cited lines are blank")]
            return out + self.quotes(site, text, "\n".join(lines[a - 1:b])) + self.numbers(site, lines, a, b)
        a, b = py.trim(a, b)
        if a > b:
            return out + [("range", "the cited lines are blank or comments")]
        cov = cover(py.tree.body, a, b)
        if not cov.nodes:
            return out + [("range", "no statement in the cited lines")]
        if cov.cut:
            out.append(("cut", f"the range cuts a statement ({where(cov.cut)})"))
        out += self.in_symbol(site, py, cov, a, b)
        held = "\n".join(lines[span(cov.nodes[0])[0] - 1:span(cov.nodes[-1])[1]])
        out += self.quotes(site, text, held)
        if site.loc.role in ("main", "alt") and not site.doc:
            if site.cite.section == "rules" and site.cite.entry.get("message"):
                out += self.rule_relevance(site, py, cov, a, b)
            elif site.cite.section == "normalize":
                out += self.step_relevance(site, py, a, b)
        return out

    def in_symbol(self, site, py, cov, a, b):
        """"path:12-20 (_apply_cfgs)": the lines are in that function, or call it."""
        name = site.loc.symbol
        if not name or site.loc.role == "secondary" or not re.search(r"[_.A-Z]", name):
            return []            # "(mlp)", "(setup)": a label as likely as a name
        node = py.symbol(name)
        if not is_def(node):
            return []
        s0, s1 = span(node)
        if s0 <= a and b <= s1 or name.split(".")[-1] in "\n".join(py.lines[a - 1:b]):
            return []
        return [("symbol", f"the lines are not in {name} ({where(node)})")]

    @staticmethod
    def quotes(site, text, held):
        """Quoted code or messages in the citation must be in the cited lines, when the file
        has them at all (a quote of an error the driver prints is not in the file)."""
        flat = lambda s: re.sub(r"[\s'\"\\]+|\.\.\.|…", "", s)
        out = []
        for q in site.loc.quotes:
            pieces = [flat(p) for p in re.split(r"\.\.\.|…", q) if flat(p)]
            if pieces and all(p in flat(text) for p in pieces) and not all(p in flat(held) for p in pieces):
                out.append(("quote", f"the quoted '{q[:50]}' is not in the cited lines"))
        return out

    def numbers(self, site, lines, a, b):
        """A rule's message that quotes a number from a document: the cited lines must have it."""
        msg = site.cite.entry.get("message") or ""
        if not site.path.endswith(TEXT_SUFFIXES) or site.cite.section != "rules":
            return []
        near = " ".join(lines[max(0, a - 2):b + 1])
        out = []
        for quoted, num in re.findall(r"(?<![\w.{])((\d+(?:\.\d+)?)(?:\s?(?:GB|GiB|MB|MiB|%|x)\b)?)(?![\w.])", re.sub(r"\{[^}]*\}", "", msg)):
            if not re.search(r"(?<![\d.])" + re.escape(num) + r"(?![\d.])", near):
                others = [t for _, t in RELEASES[site.repo.name] if t != site.ref and site.repo.sha(t)
                          and re.search(r"(?<![\d.])" + re.escape(num) + r"(?![\d.])", site.repo.text(t, site.path) or "")]
                out.append(("number", f"the message quotes {quoted}, which these lines do not say"
                            + (f" (the file has it at {', '.join(others)})" if others else "")))
        return out

    def rule_relevance(self, site, py, cov, a, b):
        """A rule's lines should hold the check that raises with its message (or at least a
        check): not a list of allowed values, not another rule's check."""
        entry, msg = site.cite.entry, site.cite.entry["message"]
        inside = [(n, m) for n, m in py.checks if n.lineno <= b and n.end_lineno >= a]
        own = max((similarity(msg, m) for _, m in inside), default=0.0)
        elsewhere = max(((similarity(msg, m), n) for n, m in py.checks if m), key=lambda t: t[0], default=(0.0, None))
        hint = f"; the message is raised at {where(citable(elsewhere[1]))}" if elsewhere[0] >= EXACT else ""
        if not inside and all(is_values(n) for n in cov.nodes):
            names = {t.id for n in cov.nodes for t in getattr(n, "targets", [getattr(n, "target", None)]) if isinstance(t, ast.Name)}
            return [("values", f"points at a list of allowed values, not the check that raises{self.user_of(py, names) or hint}")]
        if inside and own < SAME:
            other = self.best_other(entry, [m for _, m in inside])
            if other and not self.cites(other[0], site, a, b):
                return [("swapped", f"holds {other[0]}'s check (\"{other[1][:60]}\"), not this rule's{hint}")]
        if not inside and elsewhere[0] >= EXACT:
            return [("no-check", f"no raise or assert in the cited lines{hint}")]
        return []

    def cites(self, rule_id, site, a, b):
        """Whether a rule cites lines a..b of the same file at the same ref (then the lines are
        shared, as one assert serves two rules, not swapped)."""
        sha = site.repo.sha(site.ref)
        return any(s.cite.id == rule_id and s.path == site.path and s.repo is site.repo and s.loc.lines
                   and s.loc.lines[0] <= b and a <= s.loc.lines[1] and site.repo.sha(s.ref) == sha for s in self.sites)

    def best_other(self, entry, messages):
        best = (0.0, None, None)
        for rule in self.rules:
            if rule.get("id") == entry.get("id"):
                continue
            for m in messages:
                s = similarity(rule["message"], m)
                if s > best[0]:
                    best = (s, rule["id"], m)
        return best[1:] if best[0] >= EXACT else None

    @staticmethod
    def user_of(py, names):
        """Where the check that reads a list of allowed values is: its function, when short."""
        for node, _ in py.checks:
            fn = enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            scope = fn or node
            if names & {n.id for n in ast.walk(scope) if isinstance(n, ast.Name)}:
                target = fn if fn and span(fn)[1] - span(fn)[0] <= 20 else citable(node)
                return f"; the check that raises is {where(target)}"
        return ""

    def step_relevance(self, site, py, a, b):
        """A step that changes a config key (not one of cglint's own `_` facts) mirrors code that
        changes something: its lines hold an assignment or a call, and name a key it sets when
        the lines right beside them do."""
        keys = set_keys(site.cite.entry)
        if not keys:
            return []
        acts = [n for n in ast.walk(py.tree) if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete, ast.Return))
                or (isinstance(n, ast.Expr) and isinstance(n.value, ast.Call))]
        out = []
        if not any(a <= n.lineno <= b for n in acts):
            out.append(("no-effect", "no assignment or call in the cited lines"))
        named = lambda i: any(re.search(r"\b\w*" + k + r"\b", py.lines[i - 1]) for k in keys)
        sets = {n.lineno for n in acts if named(n.lineno)}
        near = [i for i in list(range(b + 1, b + 4)) + list(range(a - 1, a - 4, -1)) if i in sets]
        if near and not any(named(i) for i in range(a, b + 1)):
            out.append(("keys", f"the cited lines name none of the keys the step sets ({', '.join(sorted(keys))}); L{near[0]} does"))
        return out


def set_keys(entry):
    """The last part of each config key a step sets (model.cuda_graph_impl: cuda_graph_impl)."""
    return {k.split(".")[-1] for k in (entry.get("set") or {}) if not k.split(".")[-1].startswith("_")}


# --- line references in a rule's doc text ------------------------------------------------------

DOCREF_RE = re.compile(PATH + r"(?::" + RANGE + r"(?![\d.])|((?:,?\s+0\.\d+\s+L\d+(?:-\d+)?)+))")


def doc_sites(entries, sites):
    """Sites for "cuda_graphs.py:1376-1379" and "arguments.py 0.16 L1247-1254" in doc text. The
    path is one the rule cites (else one any rule cites); the version is the one the sentence
    names, else the rule's."""
    by_id, by_name = {}, {}
    for site in sites:
        if site.path:
            by_id.setdefault(site.cite.id, []).append(site)
            by_name.setdefault(os.path.basename(site.path), []).append(site)
    out = []
    for entry in entries:
        doc = entry.get("doc") or ""
        for m in DOCREF_RE.finditer(doc):
            name = os.path.basename(m.group(1))
            known = [s for s in by_id.get(entry.get("id"), []) if os.path.basename(s.path) == name] or by_name.get(name, [])
            if not known:            # a file no citation names: nothing to read it against
                continue
            refs = [(v, r) for v, r in re.findall(r"(0\.\d+)\s+L(\d+(?:-\d+)?)", m.group(3) or "")] or [(None, m.group(2))]
            for version, rng in refs:
                out += doc_site(entry, doc, m, version, rng, known[0])
    return out


def doc_site(entry, doc, m, version, rng, like):
    repo, project = like.repo, like.repo.name
    names = [v for v, _ in RELEASES[project]]
    version = version or sentence_version(doc, m.start(), m.end(), names)
    if version:
        tag = patch_tag(repo, project, version)
        refs = [(tag, tag)] if tag else []
    elif entry.get(project):
        refs = [(tag_of(project, v), tag_of(project, v)) for v in versions_in(project, entry[project])]
    else:
        refs = [(like.ref, like.label)]
    line = entry.get("_doc_line", 0) + doc[:m.start()].count("\n")
    cite = Cite(entry["_pack"], line, entry, entry["_section"], "doc", m.group(0), None, entry["_file"])
    return [Site(cite, Loc(like.path, parse_range(rng)), repo, ref, label, like.path, doc=True) for ref, label in refs]


def sentence_version(doc, start, end, names):
    """The release a sentence names nearest to a reference in it ("Bridge 0.4.0 and 0.4.1 have
    the same line (overrides.py:118)": 0.4.1), before it first."""
    s0 = max(doc.rfind(". ", 0, start), doc.rfind("\n\n", 0, start)) + 1
    s1 = min([i for i in (doc.find(". ", end), doc.find("\n\n", end)) if i >= 0] or [len(doc)])
    valid = lambda v: ".".join(v.split(".")[:2]) in names
    before = [v for v in re.findall(r"(?<![\w.])(0\.\d+(?:\.\d+)?)(?![\w.])", doc[s0:start]) if valid(v)]
    after = [v for v in re.findall(r"(?<![\w.])(0\.\d+(?:\.\d+)?)(?![\w.])", doc[end:s1]) if valid(v)]
    return (before[-1:] or after[:1] or [None])[0]


def patch_tag(repo, project, v):
    """The tag of a version as a sentence writes it: 0.4.1 -> v0.4.1, 0.19 -> core_v0.19.0."""
    if re.fullmatch(r"0\.\d+\.\d+", v):
        tag = ("core_v" if project == "mcore" else "v") + v
        return tag if repo.sha(tag) else None
    return tag_of(project, v)


def check_doc_site(site, checker, all_sites):
    """A doc line reference: sound lines, and where the rule cites the same file at the same
    ref, lines that overlap its citation."""
    out = checker.check(site)
    a, b = site.loc.lines
    sha = site.repo.sha(site.ref)
    mine = [s for s in all_sites if s.cite.id == site.cite.entry.get("id") and s.path == site.path and s.ref
            and s.loc.lines and s.repo is site.repo and site.repo.sha(s.ref) == sha]
    if mine and not any(s.loc.lines[0] <= b and a <= s.loc.lines[1] for s in mine):
        cited = ", ".join(sorted({fmt_range(s.loc.lines) for s in mine}))
        out.append(("doc", f"the rule cites {cited} of this file at {site.label}; these lines hold {first_line(site)}"))
    return out


def first_line(site):
    text = site.repo.text(site.ref, site.path) or ""
    lines = text.splitlines()
    a = site.loc.lines[0]
    return repr(lines[a - 1].strip()[:60]) if 0 < a <= len(lines) else "nothing"


def fmt_range(r):
    return f"L{r[0]}" + (f"-{r[1]}" if r[1] != r[0] else "")


# --- moves: where the cited code is at another ref ---------------------------------------------

@dataclass
class Move:
    status: str            # in place, moved, changed, gone
    path: str | None = None
    lines: tuple | None = None
    detail: str = ""


def locate(site, to_ref):
    """Where the code a place cites at its own ref is at to_ref."""
    repo, loc = site.repo, site.loc
    path = site.path if site.path in repo.files(to_ref) else repo.renamed(site.ref, to_ref, site.path)
    if not loc.lines:
        if not path:
            return Move("gone", detail=f"no {site.path} at {to_ref}")
        if loc.symbol and site.path.endswith(".py"):
            old, new = pyfile(repo, site.ref, site.path), pyfile(repo, to_ref, path)
            if old.tree and old.symbol(loc.symbol) and new.tree and not new.symbol(loc.symbol):
                return Move("gone", path, detail=f"no {loc.symbol} in {path}")
        return Move("in place" if path == site.path else "moved", path, detail="" if path == site.path else "file renamed")
    old = pyfile(repo, site.ref, site.path)
    if site.path.endswith(".py") and old.tree:
        return locate_py(site, old, path, to_ref)
    return locate_text(site, old.lines, path, to_ref)


def locate_py(site, old, path, to_ref):
    a, b = old.trim(*site.loc.lines)
    if a > b:
        return Move("gone", detail="the cited lines are blank")
    anchor = cover(old.tree.body, a, b).nodes
    if not anchor:
        return Move("gone", detail="no statement in the cited lines")
    # the same statements: in the file, else in the files that have their longest string
    here = pyfile(site.repo, to_ref, path) if path else None
    hit = exact(anchor, here) if here and here.tree else None
    if hit:
        return moved(site, path, anchor, hit, a, b)
    elsewhere = [f for f in site.repo.grep(to_ref, needle(old, anchor), ".py")[:20] if f != path]
    for cand in elsewhere:
        new = pyfile(site.repo, to_ref, cand)
        hit = exact(anchor, new) if new.tree else None
        if hit:
            return moved(site, cand, anchor, hit, a, b)
    best = None           # else the most alike, in the file (or where its string went)
    for cand in [path] if path else elsewhere:
        new = pyfile(site.repo, to_ref, cand)
        near = nearest(anchor, new) if new.tree else None
        if near and (not best or near[0] > best[0]):
            best = (near[0], cand, near[1])
    if best and best[0] >= SAME:
        return Move("changed", best[1], carry(site, anchor, best[2], a, b), f"{best[0]:.0%} alike")
    if best and best[0] >= 0.3:
        return Move("gone", path, detail=f"the most alike is {best[1]}:{fmt_range((span(best[2][0])[0], span(best[2][-1])[1]))[1:]}, {best[0]:.0%}")
    return Move("gone", path, detail=f"nothing like it in {path or 'the tree'}")


def needle(py, nodes):
    strings = [n.value for node in nodes for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    if strings and len(max(strings, key=len)) >= 16:
        return max(strings, key=len)
    s0, s1 = span(nodes[0])[0], span(nodes[-1])[1]
    return max((line.strip() for line in py.lines[s0 - 1:s1]), key=len)


def exact(anchor, new):
    """The statements of `new` with the anchor's structure, side by side as in the anchor; of
    several, the one in the same function, between the same neighbours, nearest the old lines."""
    found = []
    for node in new.dumps().get(ast.dump(anchor[0]), []):
        sibs = siblings(node)
        i = sibs.index(node)
        window = sibs[i:i + len(anchor)]
        if len(window) == len(anchor) and all(ast.dump(x) == ast.dump(y) for x, y in zip(window, anchor)):
            found.append(window)
    old_fn, old_line = qualname(getattr(anchor[0], "parent", None)), span(anchor[0])[0]
    score = lambda w: (qualname(getattr(w[0], "parent", None)) == old_fn, neighbours(anchor) == neighbours(w),
                       -abs(span(w[0])[0] - old_line))
    return max(found, key=score) if found else None


def neighbours(window):
    """The statements just before and after a run of statements, by structure."""
    sibs = siblings(window[0])
    i, j = sibs.index(window[0]), sibs.index(window[-1])
    return tuple(ast.dump(sibs[k]) if 0 <= k < len(sibs) else None for k in (i - 1, j + 1))


def siblings(node):
    """The statements beside a statement, in order (an if's body and else as one run)."""
    parent = getattr(node, "parent", None)
    block = children(parent) if isinstance(parent, ast.stmt) else getattr(parent, "body", [node])
    return block if node in block else [node]


def nearest(anchor, new):
    """The most alike run of statements in `new`, looked for in the function that held the
    anchor (if it still exists), else in the whole file: (likeness, nodes)."""
    text = lambda nodes: "\n".join(ast.unparse(n) for n in nodes)
    want = text(anchor)
    fn = qualname(anchor[0].parent) if hasattr(anchor[0], "parent") else ""
    scope = new.symbol(fn) if fn else None
    pool = [n for n in ast.walk(scope or new.tree) if isinstance(n, type(anchor[0]))]
    best = (0.0, None)
    for node in pool:
        sibs = siblings(node)
        i = sibs.index(node)
        window = sibs[i:i + len(anchor)]
        cand = text(window)
        matcher = difflib.SequenceMatcher(None, want, cand)
        if matcher.real_quick_ratio() > best[0] and matcher.quick_ratio() > best[0]:
            r = matcher.ratio()
            if r > best[0]:
                best = (r, window)
    return best if best[1] else None


def moved(site, path, anchor, hit, a, b):
    new = carry(site, anchor, hit, a, b)
    return Move("in place" if path == site.path and new == site.loc.lines else "moved", path, new)


def carry(site, anchor, hit, a, b):
    """The cited range carried over: the same offsets from the anchor's first and last lines
    (part of one statement: shifted with it, and kept inside it)."""
    o0, o1 = span(anchor[0])[0], span(anchor[-1])[1]
    n0, n1 = span(hit[0])[0], span(hit[-1])[1]
    if len(anchor) == 1 and (o0 < a or b < o1):
        return (site.loc.lines[0] + n0 - o0, min(site.loc.lines[1] + n0 - o0, n1))
    return (site.loc.lines[0] + n0 - o0, site.loc.lines[1] + n1 - o1)


def locate_text(site, old_lines, path, to_ref):
    """A document or script: the cited lines, stripped, as a block of the other file."""
    a, b = site.loc.lines
    want = [line.strip() for line in old_lines[a - 1:b]]
    if not path or not any(want):
        return Move("gone", detail=f"no {site.path} at {to_ref}" if not path else "the cited lines are blank")
    new = [line.strip() for line in (site.repo.text(to_ref, path) or "").splitlines()]
    n = len(want)
    hits = [i + 1 for i in range(len(new) - n + 1) if new[i:i + n] == want]
    if hits:
        i = min(hits, key=lambda h: abs(h - a))        # of several, the nearest
        return Move("in place" if (path, i) == (site.path, a) else "moved", path, (i, i + n - 1))
    best = max(((difflib.SequenceMatcher(None, "\n".join(want), "\n".join(new[i:i + n])).ratio(), i)
                for i in range(max(1, len(new) - n + 1))), default=(0.0, 0))
    if best[0] >= SAME:
        return Move("changed", path, (best[1] + 1, best[1] + n), f"{best[0]:.0%} alike")
    return Move("gone", path, detail=f"nothing like it in {path}")


# --- rewriting line numbers in the packs -------------------------------------------------------

def rewrite(edits):
    """Apply [(cite, (start, end), new text)] to the pack files, each written to a temporary
    file beside it and renamed over it, so a pack is never half written."""
    by_pack = {}
    for cite, (s, e), new in edits:
        if cite.offset is not None:
            by_pack.setdefault(cite.file, []).append((cite.offset + s, cite.offset + e, cite.text[s:e], new))
    for pack, changes in by_pack.items():
        with open(pack, encoding="utf-8") as f:
            text = f.read()
        for s, e, old, new in sorted(set(changes), reverse=True):
            if text[s:e] != old:
                raise Usage(f"{pack} changed under citecheck; nothing written")
            text = text[:s] + new + text[e:]
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(pack), prefix=".citecheck-", suffix=".yaml")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, os.stat(pack).st_mode & 0o777)
        os.replace(tmp, pack)
    return sum(len(c) for c in by_pack.values())


# --- the commands ------------------------------------------------------------------------------

def head(site):
    where = site.path or site.loc.path
    rng = f":{site.loc.lines[0]}" + (f"-{site.loc.lines[1]}" if site.loc.lines[1] != site.loc.lines[0] else "") if site.loc.lines else ""
    sym = f" ({site.loc.symbol})" if site.loc.symbol and not site.loc.lines else ""
    origin = f"{site.cite.pack}:{site.cite.line}"
    key = " (doc)" if site.doc else f" [{site.cite.key}]"
    return f"{origin}: {site.cite.id}{key} {where}{rng}{sym} @{site.label}"


def cmd_check(args, cites, entries, resolver):
    sites = resolver.all_sites(cites)
    checker = Checker(entries, sites)
    counts = dict.fromkeys(("hold", "with findings", "outside the trees (CUDA, PyTorch, NCCL)"), 0)
    for site in sites + doc_sites(entries, sites):
        if not site.repo:
            counts["outside the trees (CUDA, PyTorch, NCCL)"] += 1
            continue
        found = [("file", site.why)] if site.why else check_doc_site(site, checker, sites) if site.doc else checker.check(site)
        counts["with findings" if found else "hold"] += 1
        for kind, detail in found:
            print(f"{head(site)}: {kind}: {detail}")
        if not found and args.all:
            print(f"{head(site)}: ok")
    print(f"citecheck: {len(cites)} citations, {sum(counts.values())} places: " + ", ".join(f"{v} {k}" for k, v in counts.items()))
    return 1 if counts["with findings"] else 0


def cmd_moves(args, cites, entries, resolver):
    sites = resolver.all_sites(cites)
    sites += doc_sites(entries, sites)
    if args.from_ref:           # the tree(s) that have the ref
        pairs = [(r, args.from_ref, args.to_ref) for r in resolver.repos.values() if r.sha(args.from_ref)]
        if not pairs:
            raise Usage(f"no ref {args.from_ref} in either tree")
    else:
        pairs = [(resolver.repos[name], old, new) for name, old, new in DEFAULT_PAIRS]
    edits, status = [], 0
    for repo, old, new in pairs:
        if not repo.sha(new):
            raise Usage(f"no ref {new} in {repo.name}")
        counts, found = move_pair(sites, repo, old, new, resolver)
        edits += found
        print(f"citecheck: {old} -> {new}: {sum(counts.values())} places: " + ", ".join(f"{v} {k}" for k, v in counts.items()))
        status = max(status, 1 if counts["moved"] + counts["changed"] + counts["gone"] else 0)
    if args.rewrite:
        print(f"citecheck: rewrote {rewrite(edits)} line ranges in {args.rules}")
    if args.add:
        added, skipped = add_key(args.add, sites, pairs, resolver)
        for why in skipped:
            print(f"citecheck: not added: {why}")
        print(f"citecheck: added {added} '{args.add}' citations in {args.rules}")
    return status


def applies_to_branch(entry, project):
    """Whether an entry's own range holds a development target: no range, or one open above."""
    spec = str(entry.get(project, "")).strip().strip('"')
    if not spec or spec == "any":
        return True
    if spec == "none":
        return False
    return "main" in spec and "<main" not in spec or ("<" not in spec and re.search(r"(>=|>)\s*[\d.dev]", spec) is not None)


def add_key(key, sites, pairs, resolver):
    """--add KEY: for each citation of --from whose every place moved cleanly to --to, a new
    mirrors line KEY beside it with the places at --to, so a development target cites its own
    lines. A citation with a place that changed, went, sits in another file, or is pinned to
    another commit is left for a person, and said."""
    project = key.split()[0]
    by_cite = {}
    for repo, old, new in pairs:
        old_sha, sub_new = repo.sha(old), repo.submodule(new) if repo.name == "bridge" else None
        for site in sites:
            if site.doc or not site.loc.lines:
                continue
            target = to_ref_for(site, repo, old_sha, new, sub_new, resolver)
            if target:
                by_cite.setdefault(id(site.cite), (site.cite, []))[1].append((site, locate(site, target)))
    inserts, skipped = {}, []
    for cite, found in by_cite.values():
        entry = cite.entry
        have = [c for c in (entry.get("mirrors") or {})]
        if not cite.key.startswith(project) or key in have or not applies_to_branch(entry, project):
            continue
        if cite.offset is None or "\n" in cite.text:
            skipped.append(f"{cite.pack}:{cite.line} {cite.id} [{cite.key}]: not a one-line plain citation")
            continue
        bad = [f"{s.path}:{fmt_range(s.loc.lines)[1:]} {m.status}" for s, m in found
               if m.status not in ("in place", "moved") or (m.path and m.path != s.path) or not s.loc.span]
        if bad:
            skipped.append(f"{cite.pack}:{cite.line} {cite.id} [{cite.key}]: " + ", ".join(bad))
            continue
        text = cite.text
        for s, m in sorted(found, key=lambda sm: sm[0].loc.span, reverse=True):
            if m.status == "moved" and m.lines:
                a, b = s.loc.span
                text = text[:a] + fmt_range(m.lines)[1:] + text[b:]
        inserts.setdefault(cite.file, []).append((cite.offset, cite.text, text))
    added = 0
    for pack, items in inserts.items():
        with open(pack, encoding="utf-8") as f:
            source = f.read()
        for offset, old_text, new_text in sorted(items, reverse=True):
            if source[offset:offset + len(old_text)] != old_text:
                raise Usage(f"{pack} changed under citecheck; nothing written")
            start = source.rfind("\n", 0, offset) + 1
            end = source.find("\n", offset + len(old_text))
            indent = re.match(r"\s*", source[start:end]).group(0)
            opening = source[offset - 1] if source[offset - 1] in "\"'" else ""
            closing = opening if opening and source[offset + len(old_text)] == opening else ""
            source = source[:end + 1] + f"{indent}{key}: {opening}{new_text}{closing}\n" + source[end + 1:]
            added += 1
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(pack), prefix=".citecheck-", suffix=".yaml")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(source)
        os.chmod(tmp, os.stat(pack).st_mode & 0o777)
        os.replace(tmp, pack)
    return added, skipped


def move_pair(sites, repo, old, new, resolver):
    """Print where each place cited at `old` is at `new`: the counts, and the edits that
    --rewrite would make (moved places of `old` itself, not of the Megatron Core Bridge pins)."""
    counts, edits = dict.fromkeys(("in place", "moved", "changed", "gone"), 0), []
    old_sha, sub_new = repo.sha(old), repo.submodule(new) if repo.name == "bridge" else None
    print(f"# {repo.name}: {old} ({old_sha[:10]}) -> {new} ({repo.sha(new)[:10]})")
    for site in sites:
        target = to_ref_for(site, repo, old_sha, new, sub_new, resolver)
        if not target:
            continue
        mv = locate(site, target)
        counts[mv.status] += 1
        where = f"{mv.path}:{fmt_range(mv.lines)[1:]}" if mv.lines else mv.path
        at = f": {where} @{new if target == new else target[:10]}" if mv.status != "in place" and where else ""
        print(f"{head(site)}: {mv.status}{at}" + (f" ({mv.detail})" if mv.detail else ""))
        if mv.status == "moved" and mv.lines and site.loc.span and mv.path == site.path and target == new and not site.doc:
            edits.append((site.cite, site.loc.span, fmt_range(mv.lines)[1:]))
    return counts, edits


def to_ref_for(site, repo, old_sha, new, sub_new, resolver):
    """The ref to look at for a place at `old`, or None: the place itself, or the Megatron Core a
    Bridge release pins (compared with the one the other Bridge ref pins)."""
    if not site.ref or not site.path:
        return None
    if site.repo is repo and repo.sha(site.ref) == old_sha:
        return new
    if repo.name == "bridge" and site.repo is resolver.repos["mcore"] and sub_new:
        sub_old = repo.submodule(old_sha)
        if sub_old and site.repo.sha(site.ref) == sub_old:
            return sub_new
    return None


def main(argv=None):
    p = argparse.ArgumentParser(prog="citecheck.py", description=__doc__.split("\n\n")[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("mode", choices=["check", "moves"])
    p.add_argument("--all", action="store_true", help="check: print the places that hold too")
    p.add_argument("--from", dest="from_ref", help="moves: the ref the citations cite (a tag or commit)")
    p.add_argument("--to", dest="to_ref", help="moves: the ref to look at (default main)")
    p.add_argument("--rewrite", action="store_true", help="moves: write the moved line numbers into the packs")
    p.add_argument("--add", metavar="KEY", help="moves: add a mirrors line KEY (\"mcore main\") with the places at --to")
    p.add_argument("--rules", default=os.path.join(ROOT, "rules"), help="the folder of rule packs (default rules/)")
    p.add_argument("--mcore-git", help="Megatron-LM git directory")
    p.add_argument("--bridge-git", help="Megatron-Bridge git directory")
    p.add_argument("--skip-status", type=int, help="exit with this status, not 2, when a tree or PyYAML is missing")
    args = p.parse_args(argv)
    if args.mode == "check" and (args.from_ref or args.to_ref or args.rewrite or args.add):
        p.error("--from, --to, --rewrite and --add go with moves")
    if args.add and (args.rewrite or not args.from_ref):
        p.error("--add needs --from, and not --rewrite")
    if args.to_ref and not args.from_ref:
        p.error("--to needs --from")
    args.to_ref = args.to_ref or "main"
    try:
        repos = {"mcore": find_repo("mcore", args.mcore_git), "bridge": find_repo("bridge", args.bridge_git)}
        cites, entries = load_packs(args.rules)
        resolver = Resolver(repos)
        return (cmd_check if args.mode == "check" else cmd_moves)(args, cites, entries, resolver)
    except Usage as e:
        if isinstance(e, Missing) and args.skip_status is not None:
            print(f"citecheck: skipped: {e}")
            return args.skip_status
        print(f"citecheck: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
