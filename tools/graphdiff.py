#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""graphdiff: what CUDA-graph-related validation changed between two refs of MCore or Bridge.

Usage:
    python3 tools/graphdiff.py mcore core_v0.19.0 main
    python3 tools/graphdiff.py mcore core_v0.19.0 2a75ac12
    python3 tools/graphdiff.py bridge v0.6.0 main [--json] [-v] [--expect tools/graphdiff-expected.txt]

What: for each source file in SOURCES (the entry points that validate configs), read the file at both
refs from a bare git mirror (`git cat-file`, no work tree), parse it with `ast`, and extract items:

  raise / assert / warn   every `raise X(...)`, `assert c, msg` and warning call (warnings.warn,
                          logger.warning, warn_rank_0, log_single_rank(..WARNING..), ...), with its
                          function's qualified name, the chain of enclosing `if` conditions (and
                          of early `if c: return` guards before it) and its message text (string
                          constants and f-string parts joined, local message variables resolved);
  rewrite                 `obj.X = ...` / `setattr(obj, "X", ...)` (also over a constant list of
                          names) in validation functions: __post_init__, finalize, validate*,
                          _validate*, runtime_config_update, setup, and the functions of the same
                          file they call;
  derive                  in graph-named code (e.g. _CudaGraphRunner.__init__), a value computed
                          from a config field (`...config.X`, `args.X`) that a rule reads or that
                          is graph-named;
  field                   fields (type = default) of the config dataclasses (class name with
                          Config, or ending in Provider or Container), with their docstrings;
  flag                    argparse add_argument flags (type, action, default, choices, ...).

Each item has a stable key (file, function, kind, normalized message or target), so the two refs
are matched without line numbers; a file renamed between the refs (git diff -M) keeps one key.
Items present at both refs with a different condition or value are "changed". Leftover removed
and added items of one function and kind with similar messages (difflib ratio >= 0.6) are paired
as "changed" (reworded); the same message in another function or file is "moved" when nothing
else differs (counted, listed with -v) and "changed" otherwise. Only items that are
CUDA-graph-related at either ref are printed, in two tiers:

  A  graph-named: the message, a condition, the target or value, the flag's help, the function
     or class, or the file name mentions cuda_graph / CudaGraph / cudagraph / te_rng_tracker /
     full_iteration / graph_capturing / capture;
  B  rule-read or graph-documented field: the item's own condition (its assert test, innermost
     `if` and early-return guards, following local variables two assignments back), message or
     target reads a field that some cglint rule reads (`model.X`, `ddp.X`, ... in the `when:` and
     `set:` of rules/*.yaml, compared on the last component), or names a config field whose
     docstring mentions CUDA graphs (at either ref). Outer `if` guards do not count for tier B,
     so a check is not related just because it sits inside `if self.num_moe_experts:`.

Coverage: for each item, the rules and normalization steps of rules/*.yaml whose `mirrors:` cite
the item's file at a line of its span at a ref that the mirror key names (`mcore 0.19` ->
core_v0.19.0, `bridge 0.6` -> v0.6.0, `bridge >=0.4` -> v0.4.0 and later tags, `mcore main` ->
main, `mcore main@2a75ac12` -> 2a75ac12, `bridge main` -> main; compared as commits), else whose
message equals the item's message. The span is the statement, from its `if` line when it opens
that `if`'s body; parenthesized remarks of a citation (call sites, other versions) are skipped.

Output: plain text grouped by added / changed / removed, one item a line, and a summary; --json
for machines; --expect FILE checks that the listed changes are found (exit 1 when one is missing)
and lists what was found that the file does not list. Otherwise the exit status is 0.
Python 3.11 standard library only.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import difflib
import fnmatch
import json
import os
import re
import subprocess
import sys
from pathlib import Path

# ---------------------------------------------------------------------------------------------
# Sources: (glob, kinds). A glob's `*` also matches '/'. A file absent at a ref is fine.
# Kinds: checks (raise/assert/warn), rewrites, derive, fields, flags. Add a row to extend.
ALL = ("checks", "rewrites", "derive", "fields", "flags")
SOURCES: dict[str, list[tuple[str, tuple[str, ...]]]] = {
    "mcore": [
        ("megatron/core/transformer/transformer_config.py", ALL),
        ("megatron/core/model_parallel_config.py", ALL),
        ("megatron/core/distributed/distributed_data_parallel_config.py", ALL),
        ("megatron/core/distributed/fsdp/mcore_fsdp_adapter.py", ALL),
        ("megatron/core/optimizer/*config*.py", ALL),
        ("megatron/core/optimizer/fully_sharded_optimizer.py", ALL),
        ("megatron/core/transformer/cuda_graphs.py", ALL),
        ("megatron/core/transformer/cuda_graph_config.py", ALL),
        ("megatron/core/full_cuda_graph.py", ALL),
        ("megatron/core/tensor_parallel/gtp_cuda_graphs.py", ALL),
        ("megatron/core/transformer/moe/token_dispatcher.py", ALL),
        ("megatron/core/tensor_parallel/random.py", ALL),
        ("megatron/training/arguments.py", ALL),
        ("megatron/training/training.py", ALL),
        ("megatron/training/config/training_config.py", ("fields",)),
    ],
    "bridge": [
        ("src/megatron/bridge/training/config.py", ALL),
        ("src/megatron/bridge/training/comm_overlap.py", ALL),
        ("src/megatron/bridge/training/mixed_precision.py", ALL),
        ("src/megatron/bridge/training/gpt_step.py", ALL),
        ("src/megatron/bridge/utils/cuda_graph.py", ALL),
        ("src/megatron/bridge/models/transformer_config.py", ALL),
        ("src/megatron/bridge/models/gpt_provider.py", ALL),
        # Model providers carry per-model defaults of graph fields (vision_cuda_graph_*).
        ("src/megatron/bridge/models/*provider*.py", ("checks", "rewrites", "fields")),
        ("src/megatron/bridge/data/builders/energon.py", ALL),
        ("scripts/performance/argument_parser.py", ALL),
        ("scripts/performance/utils/overrides.py", ALL),
    ],
}

DEFAULT_GIT = {
    "mcore": os.environ.get("CGLINT_MCORE_GIT", "/work/.mirror/NVIDIA+Megatron-LM/repo"),
    "bridge": os.environ.get("CGLINT_BRIDGE_GIT", "/work/.mirror/NVIDIA-NeMo+Megatron-Bridge/repo"),
}
RULES_DIR = Path(__file__).resolve().parent.parent / "rules"

GRAPH_RE = re.compile(
    r"cuda[ _-]?graph|cudagraph|te_rng_tracker|full_iteration|graph_captur|captur", re.I
)
# Dataclasses whose fields are config fields (not runtime state that happens to be a dataclass).
CONFIG_CLASS_RE = re.compile(r"Config|Provider$|Container$")
VALIDATOR_RE = re.compile(
    r"^(__post_init__|finalize|_finalize\w*|validate\w*|_validate\w*|runtime_config_update|setup)$"
)
# Calls that emit a warning whatever their arguments, and calls that do so only at WARNING level.
WARN_CALLS = {"warn", "warning", "warn_rank_0", "warn_once", "warning_once", "log_warning_once"}
LEVEL_CALLS = {"log_single_rank", "log_rank_0", "print_rank_0", "print_rank_last", "log_once"}
# Sections of cglint's rule language whose names are config fields (env.*, target.* are not).
RULE_SECTIONS = (
    "model", "args", "perf", "ddp", "dataset", "optimizer", "comm_overlap", "mixed_precision",
    "rng", "rerun_state_machine", "dist", "validation", "train", "checkpoint", "scheduler",
)
KIND_ORDER = ("raise", "assert", "warn", "rewrite", "derive", "field", "flag")


# ---------------------------------------------------------------------------------------------
# Git access (bare mirrors: everything is read by object id).
class Repo:
    def __init__(self, git_dir: str):
        self.git_dir = git_dir
        self._revs: dict[str, str | None] = {}
        self._trees: dict[str, dict[str, str]] = {}

    def git(self, *args: str) -> str | None:
        res = subprocess.run(["git", "--git-dir", self.git_dir, *args],
                             capture_output=True, text=True)
        return res.stdout if res.returncode == 0 else None

    def rev(self, ref: str) -> str | None:
        if ref not in self._revs:
            out = self.git("rev-parse", "--verify", "--quiet", ref + "^{commit}")
            self._revs[ref] = out.strip() if out else None
        return self._revs[ref]

    def tree(self, ref: str) -> dict[str, str]:
        """path -> blob id of every file at ref."""
        if ref not in self._trees:
            out = self.git("ls-tree", "-r", "--full-tree", ref) or ""
            files = {}
            for line in out.splitlines():
                meta, path = line.split("\t", 1)
                _, typ, blob = meta.split()
                if typ == "blob":
                    files[path] = blob
            self._trees[ref] = files
        return self._trees[ref]

    def blob(self, blob_id: str) -> str:
        return self.git("cat-file", "blob", blob_id) or ""

    def renames(self, a: str, b: str) -> dict[str, str]:
        out = self.git("diff", "--name-status", "-M", "--diff-filter=R", a, b) or ""
        pairs = {}
        for line in out.splitlines():
            parts = line.split("\t")
            if len(parts) == 3:
                pairs[parts[1]] = parts[2]
        return pairs


def source_kinds(repo: str, path: str) -> tuple[str, ...] | None:
    """The kinds to extract from path (first matching row), or None when it is no source."""
    for pattern, kinds in SOURCES[repo]:
        if fnmatch.fnmatchcase(path, pattern):
            return kinds
    return None


def pair_files(repo_name: str, repo: Repo, a: str, b: str) -> list[tuple[str, str | None, str | None]]:
    """(canonical path, path at a, path at b) for every source file, following renames a -> b."""
    tree_a, tree_b = repo.tree(a), repo.tree(b)
    renames = repo.renames(a, b)
    back = {new: old for old, new in renames.items()}
    canon: dict[str, list[str | None]] = {}
    for path in tree_b:
        if source_kinds(repo_name, path):
            old = back.get(path, path)
            canon[path] = [old if old in tree_a else None, path]
    for path in tree_a:
        new = renames.get(path, path)
        if source_kinds(repo_name, path) or source_kinds(repo_name, new):
            entry = canon.setdefault(new, [None, new if new in tree_b else None])
            entry[0] = path
    return sorted((c, pa, pb) for c, (pa, pb) in canon.items())


# ---------------------------------------------------------------------------------------------
# Items.
@dataclasses.dataclass
class Item:
    kind: str              # raise assert warn rewrite derive field flag
    func: str              # qualified name of the enclosing function (class for fields)
    target: str            # key part: normalized message, field or flag
    text: str              # message / value / "type = default" / flag settings
    cond: list[str]        # enclosing conditions, outermost first (assert: its test last)
    line: int
    end: int
    lead: int              # first line of the span (the `if` line when the item opens its body)
    exc: str = ""          # exception class or warning call
    reads: frozenset = frozenset()  # attribute names the item's own condition/message/target reads
    doc: str = ""          # field docstring or flag help (relatedness only)
    path: str = ""

    def signature(self) -> tuple:
        """What must be equal at both refs for the item to be unchanged."""
        if self.kind in ("field", "flag"):
            return (self.text,)
        return (tuple(self.cond), self.text)


def norm(text: str) -> str:
    """Normalized message: placeholders as {}, lower case, single spaces, no trailing dot."""
    text = re.sub(r"\{[^{}]*\}", "{}", text)
    text = re.sub(r"%[-#0-9.]*[sdrfi]", "{}", text)
    return re.sub(r"\s+", " ", text).strip().rstrip(".").lower()


def string_of(node: ast.AST | None, strings: dict[str, str]) -> str:
    """Text of a message expression: constants and f-string parts joined, names resolved."""
    if node is None:
        return ""
    if isinstance(node, ast.Constant):
        return str(node.value)
    if isinstance(node, ast.JoinedStr):
        parts = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                parts.append(str(v.value))
            else:
                parts.append("{" + ast.unparse(v.value) + "}")
        return "".join(parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return string_of(node.left, strings) + string_of(node.right, strings)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        return string_of(node.left, strings)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        return string_of(node.func.value, strings)
    if isinstance(node, ast.Name) and node.id in strings:
        return strings[node.id]
    return "{" + ast.unparse(node) + "}"


def message_arg(args: list[ast.AST], strings: dict[str, str]) -> ast.AST | None:
    """The argument that carries the message: a string expression, or a name bound to one."""
    for arg in args:
        if is_stringish(arg) and not isinstance(arg, ast.Name):
            return arg
    return next((a for a in args if isinstance(a, ast.Name) and a.id in strings), None)


def is_stringish(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, (ast.JoinedStr, ast.Name)):
        return True
    if isinstance(node, ast.BinOp):
        return is_stringish(node.left)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr == "format"
    return False


def attr_names(nodes, exprs: dict | None = None, lists: dict | None = None, depth: int = 2) -> set[str]:
    """Attribute names the nodes read, the names given to getattr/hasattr as strings, the strings
    of a constant field list they iterate (lists), and, `depth` levels deep, what the local
    variables they name were computed from (exprs: `ok = getattr(cfg, "x")` then `if not ok`)."""
    names: set[str] = set()
    for node in nodes:
        if node is None:
            continue
        for sub in ast.walk(node):
            if isinstance(sub, ast.Attribute):
                names.add(sub.attr)
            elif (isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name)
                  and sub.func.id in ("getattr", "hasattr") and len(sub.args) >= 2
                  and isinstance(sub.args[1], ast.Constant) and isinstance(sub.args[1].value, str)):
                names.add(sub.args[1].value)
            elif isinstance(sub, ast.Name) and lists and sub.id in lists:
                names.update(lists[sub.id])
            elif isinstance(sub, ast.Name) and exprs and sub.id in exprs and depth > 0:
                names |= attr_names([exprs[sub.id]], exprs, lists, depth - 1)
    return names


def const_strings(node: ast.AST) -> list[str] | None:
    """["a", "b"] for a tuple/list/set of string constants, else None."""
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and node.elts and all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
        return [e.value for e in node.elts]
    return None


def call_name(func: ast.AST) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def is_dataclass(cls: ast.ClassDef) -> bool:
    for dec in cls.decorator_list:
        node = dec.func if isinstance(dec, ast.Call) else dec
        if call_name(node) == "dataclass":
            return True
    return False


def reads_config(node: ast.AST) -> set[str]:
    """Fields read as `<...>config.X` / `args.X` in node."""
    found = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Attribute):
            base = ast.unparse(sub.value)
            if base == "args" or base.endswith("config") or base.endswith("args"):
                found.add(sub.attr)
    return found


# ---------------------------------------------------------------------------------------------
# Extraction: one pass to find the validation functions (and their helpers), one to walk.
def validation_functions(tree: ast.Module) -> set[str]:
    """Qualnames of validation functions and of the same file's functions they call."""
    calls: dict[str, set[str]] = {}
    by_name: dict[str, set[str]] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                qual = prefix + child.name
                by_name.setdefault(child.name, set()).add(qual)
                calls[qual] = {call_name(c.func) for c in ast.walk(child) if isinstance(c, ast.Call)}
                visit(child, qual + ".")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")
            else:
                visit(child, prefix)

    visit(tree, "")
    todo = [q for q in calls if VALIDATOR_RE.match(q.rsplit(".", 1)[-1])]
    seen = set(todo)
    while todo:
        for name in calls[todo.pop()]:
            for qual in by_name.get(name, ()):
                if qual not in seen:
                    seen.add(qual)
                    todo.append(qual)
    return seen


@dataclasses.dataclass
class Ctx:
    qual: str = ""
    cond: tuple[str, ...] = ()
    own: tuple = ()                 # the item's own condition: innermost `if` test and the
                                    # early-return guards before it in its block (tier B reads it)
    lead: int = 0                   # the `if` line when the statement opens that if's body
    validating: bool = False
    strings: dict | None = None     # local name -> message text
    lists: dict | None = None       # local name -> string constants (for setattr loops)
    binds: dict | None = None       # loop variable -> string constants
    exprs: dict | None = None       # local name -> the expression last assigned to it


class Extractor:
    """Walks one file's syntax tree and collects its items (Item) in self.items."""

    def __init__(self, tree: ast.Module, kinds: tuple[str, ...], rule_fields: set[str]):
        self.kinds = kinds
        self.rule_fields = rule_fields
        self.validators = validation_functions(tree)
        self.items: list[Item] = []
        # Module-level constant name lists, e.g. _HYBRIDEP_PADDING_FIELDS = ("a", "b").
        self.module_lists = {}
        for stmt in tree.body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
                    and isinstance(stmt.targets[0], ast.Name) and const_strings(stmt.value):
                self.module_lists[stmt.targets[0].id] = const_strings(stmt.value)
        self.body(tree.body, Ctx(strings={}, lists=dict(self.module_lists), binds={}))

    # -- walking
    def body(self, stmts: list[ast.stmt], ctx: Ctx, lead: int = 0) -> None:
        guards: list[str] = []
        guard_tests: list[ast.AST] = []
        for i, stmt in enumerate(stmts):
            here = dataclasses.replace(ctx, cond=ctx.cond + tuple(guards), lead=lead if i == 0 else 0,
                                       own=ctx.own + tuple(guard_tests))
            self.stmt(stmt, here)
            # `if c: return` / `continue` guards the statements after it.
            if (isinstance(stmt, ast.If) and not stmt.orelse and len(stmt.body) == 1
                    and isinstance(stmt.body[0], (ast.Return, ast.Continue))):
                guards.append(f"not ({ast.unparse(stmt.test)})")
                guard_tests.append(stmt.test)

    def stmt(self, stmt: ast.stmt, ctx: Ctx) -> None:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            qual = ctx.qual + ("." if ctx.qual else "") + stmt.name
            self.body(stmt.body, Ctx(qual=qual, validating=qual in self.validators, strings={},
                                     lists=dict(self.module_lists), binds={}, exprs={}))
        elif isinstance(stmt, ast.ClassDef):
            qual = ctx.qual + ("." if ctx.qual else "") + stmt.name
            if "fields" in self.kinds and is_dataclass(stmt) and CONFIG_CLASS_RE.search(stmt.name):
                self.fields(stmt, qual)
            self.body(stmt.body, dataclasses.replace(ctx, qual=qual, cond=(), own=()))
        elif isinstance(stmt, ast.If):
            test = ast.unparse(stmt.test)
            self.body(stmt.body, dataclasses.replace(ctx, cond=ctx.cond + (test,), own=(stmt.test,)),
                      lead=stmt.lineno)
            self.body(stmt.orelse, dataclasses.replace(ctx, cond=ctx.cond + (f"not ({test})",),
                                                       own=(stmt.test,)))
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            binds = dict(ctx.binds)
            values = const_strings(stmt.iter) or (
                ctx.lists.get(stmt.iter.id) if isinstance(stmt.iter, ast.Name) else None)
            if values and isinstance(stmt.target, ast.Name):
                binds[stmt.target.id] = values
            self.body(stmt.body, dataclasses.replace(ctx, binds=binds))
            self.body(stmt.orelse, ctx)
        elif isinstance(stmt, (ast.While, ast.With, ast.AsyncWith)):
            self.body(stmt.body, ctx)
            self.body(getattr(stmt, "orelse", []), ctx)
        elif isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
            self.body(stmt.body, ctx)
            for handler in stmt.handlers:
                exc = ast.unparse(handler.type) if handler.type else ""
                self.body(handler.body, dataclasses.replace(ctx, cond=ctx.cond + (f"except {exc}",)))
            self.body(stmt.orelse, ctx)
            self.body(stmt.finalbody, ctx)
        elif isinstance(stmt, ast.Match):
            for case in stmt.cases:
                self.body(case.body, ctx)
        elif isinstance(stmt, ast.Raise):
            self.raise_(stmt, ctx)
        elif isinstance(stmt, ast.Assert):
            self.assert_(stmt, ctx)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            self.assign(stmt, ctx)
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            self.call(stmt.value, stmt, ctx)

    # -- items
    def add(self, ctx: Ctx, node: ast.AST, **kw) -> None:
        kw.setdefault("cond", list(ctx.cond))
        lead = ctx.lead or node.lineno
        self.items.append(Item(func=ctx.qual, line=node.lineno, end=node.end_lineno or node.lineno,
                               lead=lead, **kw))

    def raise_(self, stmt: ast.Raise, ctx: Ctx) -> None:
        if "checks" not in self.kinds or stmt.exc is None:
            return  # a bare `raise` re-raises: not a check of its own
        exc, msg_node = stmt.exc, None
        if isinstance(exc, ast.Call):
            msg_node = message_arg(exc.args, ctx.strings) or (exc.args[0] if exc.args else None)
            exc = exc.func
        text = string_of(msg_node, ctx.strings)
        target = norm(text) or f"{ast.unparse(exc)} if {' and '.join(ctx.cond)}"
        self.add(ctx, stmt, kind="raise", target=target, text=text, exc=ast.unparse(exc),
                 reads=self.reads(ctx, *ctx.own, msg_node))

    def assert_(self, stmt: ast.Assert, ctx: Ctx) -> None:
        if "checks" not in self.kinds:
            return
        text = string_of(stmt.msg, ctx.strings)
        test = ast.unparse(stmt.test)
        self.add(ctx, stmt, kind="assert", target=norm(text) or norm(test), text=text,
                 cond=list(ctx.cond) + [test], exc="AssertionError",
                 reads=self.reads(ctx, stmt.test, stmt.msg))

    def call(self, call: ast.Call, stmt: ast.stmt, ctx: Ctx) -> None:
        name = call_name(call.func)
        if name in WARN_CALLS or (name in LEVEL_CALLS and self.at_warning(call, ctx)):
            if "checks" in self.kinds:
                self.warn(call, stmt, ctx)
        elif name == "setattr" and len(call.args) == 3:
            self.setattr_(call, stmt, ctx)
        elif name == "add_argument" and "flags" in self.kinds:
            self.flag(call, stmt, ctx)

    def at_warning(self, call: ast.Call, ctx: Ctx) -> bool:
        args = " ".join(ast.unparse(a) for a in [*call.args, *[k.value for k in call.keywords]])
        if "WARNING" in args:
            return True
        msg = message_arg(call.args, ctx.strings)
        return norm(string_of(msg, ctx.strings)).startswith("warning")

    def warn(self, call: ast.Call, stmt: ast.stmt, ctx: Ctx) -> None:
        msg = message_arg(call.args, ctx.strings)
        text = string_of(msg, ctx.strings)
        self.add(ctx, stmt, kind="warn", target=norm(text) or ast.unparse(call), text=text,
                 exc=ast.unparse(call.func), reads=self.reads(ctx, *ctx.own, msg))

    @staticmethod
    def reads(ctx: Ctx, *nodes: ast.AST | None) -> frozenset:
        return frozenset(attr_names(nodes, ctx.exprs, ctx.lists))

    def related_name(self, name: str) -> bool:
        return name in self.rule_fields or bool(GRAPH_RE.search(name))

    @staticmethod
    def relevant_name(name: str) -> bool:
        """A public field name (private attributes are a class's own state, not config)."""
        return not name.startswith("_")

    def setattr_(self, call: ast.Call, stmt: ast.stmt, ctx: Ctx) -> None:
        if "rewrites" not in self.kinds or not ctx.validating:
            return
        obj, name, value = call.args
        if isinstance(name, ast.Constant) and isinstance(name.value, str):
            names = [name.value]
        elif isinstance(name, ast.Name):
            names = ctx.binds.get(name.id, [])  # setattr(cfg, field, v) over a constant list
        else:
            names = []
        for field in names:  # relatedness is judged later, when graph-documented fields are known
            if self.relevant_name(field):
                self.add(ctx, stmt, kind="rewrite", target=f"{ast.unparse(obj)}.{field}",
                         text=ast.unparse(value), reads=frozenset({field}))

    def assign(self, stmt: ast.stmt, ctx: Ctx) -> None:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        value = stmt.value
        if value is None:
            return
        for tgt in targets:
            if isinstance(tgt, ast.Name):  # remember local message strings, field lists, values
                if ctx.exprs is not None:
                    ctx.exprs[tgt.id] = value
                if is_stringish(value) and not isinstance(value, ast.Name):
                    ctx.strings[tgt.id] = string_of(value, ctx.strings)
                if const_strings(value):
                    ctx.lists[tgt.id] = const_strings(value)
            if not isinstance(tgt, ast.Attribute):
                continue
            op = "" if isinstance(stmt, (ast.Assign, ast.AnnAssign)) else ast.unparse(stmt.op) + " "
            if ctx.validating and "rewrites" in self.kinds and self.relevant_name(tgt.attr):
                self.add(ctx, stmt, kind="rewrite", target=ast.unparse(tgt), text=op + ast.unparse(value),
                         reads=frozenset({tgt.attr}))
            elif not ctx.validating and "derive" in self.kinds and GRAPH_RE.search(ctx.qual):
                fields = {f for f in reads_config(value) if self.related_name(f)}
                if fields:
                    self.add(ctx, stmt, kind="derive", target=ast.unparse(tgt),
                             text=op + ast.unparse(value), reads=frozenset(fields))

    def fields(self, cls: ast.ClassDef, qual: str) -> None:
        body = cls.body
        for i, stmt in enumerate(body):
            if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
                continue
            ann = ast.unparse(stmt.annotation)
            if ann.startswith(("ClassVar", "typing.ClassVar", "InitVar")):
                continue
            nxt = body[i + 1] if i + 1 < len(body) else None
            doc = (nxt.value.value if isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Constant)
                   and isinstance(nxt.value.value, str) else "")
            default = ast.unparse(stmt.value) if stmt.value is not None else "(required)"
            self.items.append(Item(kind="field", func=qual, target=stmt.target.id,
                                   text=f"{ann} = {default}", cond=[], line=stmt.lineno,
                                   end=stmt.end_lineno or stmt.lineno, lead=stmt.lineno,
                                   reads=frozenset({stmt.target.id}), doc=doc))

    def flag(self, call: ast.Call, stmt: ast.stmt, ctx: Ctx) -> None:
        flags = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        if not flags:
            return
        main = max(flags, key=len)
        kw = {k.arg: k.value for k in call.keywords if k.arg}
        dest = (kw["dest"].value if isinstance(kw.get("dest"), ast.Constant)
                else main.lstrip("-").replace("-", "_"))
        settings = ", ".join(f"{k}={ast.unparse(kw[k])}" for k in
                             ("type", "action", "default", "choices", "nargs", "const", "required")
                             if k in kw)
        help_text = string_of(kw.get("help"), ctx.strings)
        self.add(ctx, stmt, kind="flag", target=main, text=settings, cond=[],
                 reads=frozenset({dest}), doc=help_text + " " + dest)


def extract(text: str, kinds: tuple[str, ...], rule_fields: set[str], path: str) -> list[Item]:
    try:
        tree = ast.parse(text)
    except SyntaxError as err:
        print(f"graphdiff: {path}: cannot parse ({err})", file=sys.stderr)
        return []
    items = Extractor(tree, kinds, rule_fields).items
    for item in items:
        item.path = path
    return items


# ---------------------------------------------------------------------------------------------
# cglint's rule packs: read with a small line reader (the packs are plain block YAML).
@dataclasses.dataclass
class Rule:
    id: str
    name: str = ""
    message: str = ""
    mirrors: dict = dataclasses.field(default_factory=dict)
    pack: str = ""


def yaml_scalar(raw: str) -> str:
    raw = raw.strip()
    if raw.startswith('"') and raw.endswith('"') and len(raw) >= 2:
        try:
            return json.loads(raw)
        except json.JSONDecodeError:
            return raw[1:-1]
    if raw.startswith("'") and raw.endswith("'") and len(raw) >= 2:
        return raw[1:-1].replace("''", "'")
    return raw


def load_rules(rules_dir: Path) -> tuple[list[Rule], set[str], dict[str, set[str]]]:
    """Rules and steps with their mirrors and messages; the fields the packs read (last component
    -> qualified names as written, e.g. 'fp8' -> {'model.fp8'})."""
    rules: list[Rule] = []
    spelled: dict[str, set[str]] = {}
    section_re = re.compile(r"\b(" + "|".join(RULE_SECTIONS) + r")\.([A-Za-z][A-Za-z0-9_]*)\b")
    for path in sorted(rules_dir.glob("*.yaml")):
        cur: Rule | None = None
        block = None          # 'mirrors' or 'expr' while inside such a block
        block_indent = 0
        for line in path.read_text().splitlines():
            stripped = line.strip()
            if not stripped or stripped.startswith("#"):
                continue
            indent = len(line) - len(line.lstrip(" "))
            m = re.match(r"^\s*-\s+id:\s*(\S+)", line)
            if m:
                cur = Rule(id=m.group(1), pack=path.stem)
                rules.append(cur)
                block = None
                continue
            key = re.match(r"^\s*(-\s+)?([A-Za-z_]+):(\s|$)(.*)$", line)
            if block and indent > block_indent and not (key and indent <= block_indent):
                if block == "mirrors" and cur is not None:
                    mk = re.match(r"^\s*([a-z]+ [^:]+):\s*(.*)$", line)
                    if mk:
                        cur.mirrors[mk.group(1).strip()] = yaml_scalar(mk.group(2))
                elif block == "expr":
                    for sec, field in section_re.findall(line):
                        spelled.setdefault(field, set()).add(f"{sec}.{field}")
                continue
            block = None
            if not key:
                continue
            name, rest = key.group(2), key.group(4)
            if cur is not None and name == "name" and indent > 2:
                cur.name = yaml_scalar(rest)
            elif cur is not None and name == "message":
                cur.message = yaml_scalar(rest)
            elif name == "mirrors":
                block, block_indent = "mirrors", indent
            elif name in ("when", "set"):
                block, block_indent = "expr", indent
                for sec, field in section_re.findall(rest):
                    spelled.setdefault(field, set()).add(f"{sec}.{field}")
    # Names starting with '_' are cglint's own derived facts, not upstream fields.
    spelled = {f: s for f, s in spelled.items() if not f.startswith("_")}
    return rules, set(spelled), spelled


def mirror_refs(repo_name: str, key: str, repo: Repo) -> list[str]:
    """The git refs a mirrors key names for repo_name: 'mcore 0.19' -> core_v0.19.0, 'bridge 0.6'
    -> v0.6.0, 'main', 'main@2a75ac12' -> 2a75ac12, a range 'bridge >=0.4' -> every release tag
    from v0.4.0 on. Keys of the other repo, 'mcore dev' and other projects name none."""
    parts = key.split()
    if len(parts) != 2 or parts[0] != repo_name:
        return []
    ver = parts[1]
    if ver == "main":
        return ["main"]
    if ver.startswith("main@"):
        return [ver[5:]]
    tag = "core_v{}.{}.0" if repo_name == "mcore" else "v{}.{}.0"
    if m := re.fullmatch(r"(\d+)\.(\d+)", ver):
        return [tag.format(*m.groups())]
    if m := re.fullmatch(r">=(\d+)\.(\d+)(-dev)?", ver):
        low = (int(m.group(1)), int(m.group(2)))
        pattern = re.escape(tag).replace(r"\{\}", r"(\d+)")
        found = []
        for name in (repo.git("tag", "-l") or "").split():
            if (t := re.fullmatch(pattern, name)) and (int(t.group(1)), int(t.group(2))) >= low:
                found.append(name)
        return found
    return []


def citations(value: str) -> list[tuple[str, int, int]]:
    """(path, first, last) cited by a mirrors value: `path:a-b` and the bare ranges after it.
    Parenthesized remarks ('(v0.3.1 L1966-1970)', '(chosen at 742-745 ...)') cite call sites or
    other versions, so they are dropped."""
    while True:
        stripped = re.sub(r"\([^()]*\)", "", value)
        if stripped == value:
            break
        value = stripped
    out, path = [], None
    token = re.compile(r"(?P<path>[\w./-]+\.(?:py|yaml|sh|md)):"
                       r"|(?<![\w.@/-])L?(?P<a>\d+)(?:-(?P<b>\d+))?(?![\w.])")
    for m in token.finditer(value):
        if m.group("path"):
            path = m.group("path")
        elif path is not None:
            a = int(m.group("a"))
            out.append((path, a, int(m.group("b") or a)))
    return out


class Coverage:
    """Which rules cover an item at a ref: by mirrored line, else by message."""

    def __init__(self, repo_name: str, repo: Repo, rules: list[Rule]):
        self.by_msg: dict[str, list[str]] = {}
        self.cites: list[tuple[str, str, str, int, int]] = []  # (sha, path, rule, a, b)
        for rule in rules:
            label = rule.id if not rule.name else f"{rule.id} {rule.name}"
            if rule.message:
                self.by_msg.setdefault(norm(rule.message), []).append(label)
            for key, value in rule.mirrors.items():
                for ref in mirror_refs(repo_name, key, repo):
                    sha = repo.rev(ref)
                    if sha:
                        self.cites.extend((sha, path, label, a, b) for path, a, b in citations(value))

    def rules_at(self, sha: str | None, item: Item | None) -> set[str]:
        if item is None or sha is None:
            return set()
        found = set()
        for csha, path, label, a, b in self.cites:
            if csha == sha and (item.path == path or item.path.endswith("/" + path)) \
                    and a <= item.end and b >= item.lead:
                found.add(label)
        literal = re.sub(r"\{\}|\W", "", norm(item.text))
        if not found and item.kind in ("raise", "assert", "warn") and len(literal) >= 12:
            pattern = re.escape(norm(item.text)).replace(r"\{\}", ".*")
            for msg, labels in self.by_msg.items():
                if re.fullmatch(pattern, msg):
                    found.update(labels)
        return found


# ---------------------------------------------------------------------------------------------
# Matching the two refs.
def keyed(items: list[Item], canon: str) -> dict[tuple, Item]:
    out: dict[tuple, Item] = {}
    for item in items:
        base = (canon, item.func, item.kind, item.target)
        key, n = base, 1
        while key in out:  # the same message twice in one function: number them in order
            n += 1
            key = base + (n,)
        out[key] = item
    return out


@dataclasses.dataclass
class Change:
    status: str                 # added changed removed
    file: str
    a: Item | None
    b: Item | None
    what: str = ""
    tier: str = ""
    reason: str = ""
    rules: tuple = ()

    @property
    def item(self) -> Item:
        return self.b or self.a


def describe(a: Item, b: Item) -> str:
    notes = []
    if a.func != b.func:
        notes.append(f"moved from {a.func or '<module>'}")
    if norm(a.text) != norm(b.text) and a.kind not in ("field", "flag"):
        notes.append("message reworded" if a.kind in ("raise", "assert", "warn") else "value changed")
    if a.kind in ("field", "flag") and a.text != b.text:
        notes.append(f"{a.text}  ->  {b.text}")
    if a.cond != b.cond:
        notes.append("condition changed")
    return "; ".join(notes)


def pair_leftovers(removed: dict, added: dict) -> list[tuple[tuple, tuple]]:
    """Pair removed/added items that are one check reworded (same function and kind, similar
    message) or moved (same kind and message, another function or file)."""
    pairs, used = [], set()
    scored = []
    for ka, ia in removed.items():
        for kb, ib in added.items():
            if ia.kind != ib.kind:
                continue
            if ia.target == ib.target:
                scored.append((2.0, ka, kb))
            elif ka[0] == kb[0] and ia.func == ib.func and ia.kind in ("raise", "assert", "warn", "rewrite"):
                ratio = difflib.SequenceMatcher(None, ia.target, ib.target).ratio()
                if ratio >= 0.6:
                    scored.append((ratio, ka, kb))
    for _, ka, kb in sorted(scored, key=lambda s: -s[0]):
        if ka not in used and kb not in used:
            used.update((ka, kb))
            pairs.append((ka, kb))
    return pairs


IDENT_RE = re.compile(r"\b[A-Za-z_][A-Za-z0-9]*_[A-Za-z0-9_]+\b")  # snake_case names in messages


@dataclasses.dataclass
class Relevance:
    """What makes an item CUDA-graph-related: the fields rules read (last component -> spellings)
    and the config fields whose docstring names CUDA graphs (at either ref)."""
    spelled: dict[str, set[str]]
    graph_documented: set[str]

    def tier(self, item: Item) -> tuple[str, str]:
        """('A', why) graph-named, ('B', why) rule-read or graph-documented field, else ('', '')."""
        check = item.kind in ("raise", "assert", "warn")
        named = (("message", item.text if check else ""),
                 ("condition", " ".join(item.cond)),
                 ("target", "" if check else item.target),
                 ("value", item.text if item.kind in ("rewrite", "derive") else ""),
                 ("help", item.doc if item.kind == "flag" else ""),
                 ("function", item.func if item.kind != "field" else ""),
                 ("class", item.func if item.kind == "field" else ""),
                 ("file", Path(item.path).name))
        for why, text in named:
            if text and GRAPH_RE.search(text):
                return "A", why
        if item.kind == "field" and GRAPH_RE.search(item.doc):
            return "B", "docstring names CUDA graphs"
        hit = sorted(q for f in item.reads if f in self.spelled for q in self.spelled[f])
        if hit:
            return "B", "rule reads " + ", ".join(hit[:4]) + (" ..." if len(hit) > 4 else "")
        words = set(item.reads) | (set(IDENT_RE.findall(item.text)) if check else set())
        documented = sorted(words & self.graph_documented)
        if documented:
            return "B", "graph-documented field " + ", ".join(documented[:3])
        return "", ""


def graph_documented(items: list[Item]) -> set[str]:
    return {i.target for i in items if i.kind == "field" and GRAPH_RE.search(i.doc)}


def diff_repo(repo_name: str, repo: Repo, ref_a: str, ref_b: str, rules_dir: Path) -> dict:
    rules, fields, spelled = load_rules(rules_dir)
    cover = Coverage(repo_name, repo, rules)
    sha_a, sha_b = repo.rev(ref_a), repo.rev(ref_b)
    tree_a, tree_b = repo.tree(ref_a), repo.tree(ref_b)
    files = pair_files(repo_name, repo, ref_a, ref_b)
    changes: list[Change] = []
    all_a, all_b = {}, {}
    every: list[Item] = []  # all items at both refs, for the graph-documented fields
    for canon, pa, pb in files:
        kinds = source_kinds(repo_name, pb or canon) or source_kinds(repo_name, pa or canon)
        blob_a, blob_b = tree_a.get(pa or ""), tree_b.get(pb or "")
        items_a = extract(repo.blob(blob_a), kinds, fields, pa) if blob_a else []
        items_b = items_a if blob_b == blob_a else (
            extract(repo.blob(blob_b), kinds, fields, pb) if blob_b else [])
        every += items_a + items_b
        if blob_a == blob_b:
            continue  # same content: nothing can differ
        ka, kb = keyed(items_a, canon), keyed(items_b, canon)
        for key in ka.keys() & kb.keys():
            if ka[key].signature() != kb[key].signature():
                changes.append(Change("changed", canon, ka[key], kb[key], describe(ka[key], kb[key])))
        all_a.update({k: v for k, v in ka.items() if k not in kb})
        all_b.update({k: v for k, v in kb.items() if k not in ka})
    moved = []
    for k_a, k_b in pair_leftovers(all_a, all_b):
        a, b = all_a.pop(k_a), all_b.pop(k_b)
        ch = Change("changed", k_b[0], a, b, describe(a, b))
        # Same check, same condition, only its function renamed or moved: not a change of what
        # is validated, so it is counted, not listed.
        (changes if a.signature() != b.signature() else moved).append(ch)
    changes += [Change("removed", k[0], v, None) for k, v in all_a.items()]
    changes += [Change("added", k[0], None, v) for k, v in all_b.items()]

    relevance = Relevance(spelled, graph_documented(every))
    kept = []
    for ch in changes + moved:
        tiers = [t for t in (relevance.tier(i) for i in (ch.a, ch.b) if i is not None) if t[0]]
        if not tiers:
            continue
        ch.tier, ch.reason = min(tiers)  # 'A' before 'B'
        ch.rules = tuple(sorted(cover.rules_at(sha_a, ch.a) | cover.rules_at(sha_b, ch.b)))
        kept.append(ch)
    order = {"added": 0, "changed": 1, "removed": 2}
    kept.sort(key=lambda c: (order[c.status], c.tier, c.file, c.item.line, KIND_ORDER.index(c.item.kind)))
    listed = [c for c in kept if not any(c is m for m in moved)]
    return {"repo": repo_name, "ref_a": ref_a, "ref_b": ref_b, "sha_a": sha_a, "sha_b": sha_b,
            "files": len(files), "changes": listed,
            "moved": [c for c in kept if any(c is m for m in moved)]}


# ---------------------------------------------------------------------------------------------
# Output.
def excerpt(text: str, width: int = 110) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    return text if len(text) <= width else text[: width - 3] + "..."


def loc(item: Item | None) -> str:
    if item is None:
        return "-"
    return f"{item.line}" if item.end == item.line else f"{item.line}-{item.end}"


def show(ch: Change) -> str:
    item = ch.item
    text = item.text if item.kind in ("raise", "assert", "warn") else f"{item.target}: {item.text}"
    if item.kind in ("raise", "assert", "warn") and not item.text:
        text = "(no message) " + (item.cond[-1] if item.cond else "")
    path = ch.file if not (ch.a and ch.a.path != ch.file) else f"{ch.a.path} => {ch.file}"
    what = f" ({ch.what})" if ch.what else ""
    rules = ", ".join(r.split()[0] for r in ch.rules) or "none"
    return (f"  {item.kind:7} {path}:{loc(ch.a)}|{loc(ch.b)}  {item.func or '<module>'}  "
            f"[{ch.tier}: {ch.reason}] \"{excerpt(text)}\"{what}  rules: {rules}")


def detail(ch: Change) -> list[str]:
    lines = []
    for side, item in (("a", ch.a), ("b", ch.b)):
        if item is None:
            continue
        if item.cond:
            lines.append(f"        {side} if: {excerpt(' / '.join(item.cond), 160)}")
        lines.append(f"        {side} text: {excerpt(item.text, 160)}")
    return lines


def print_text(result: dict, verbose: bool) -> None:
    changes = result["changes"]
    print(f"graphdiff {result['repo']} {result['ref_a']} ({(result['sha_a'] or '?')[:10]}) -> "
          f"{result['ref_b']} ({(result['sha_b'] or '?')[:10]}): {result['files']} source files")
    print("  file:<line at ref a>|<line at ref b>; tier A = graph-named, B = reads a field a "
          "cglint rule reads or a field documented as graph-related")
    for status in ("added", "changed", "removed"):
        group = [c for c in changes if c.status == status]
        print(f"\n{status.upper()} ({len(group)})")
        for ch in group:
            print(show(ch))
            if verbose:
                print("\n".join(detail(ch)))
    moved = result["moved"]
    print(f"\nMOVED ({len(moved)}: the same check, condition and message in another function or "
          f"class; {'listed' if verbose else 'listed with -v'})")
    for ch in moved if verbose else []:
        print(show(ch))
    print("\nsummary: " + summary(changes) + f"; {len(moved)} moved")


def summary(changes: list[Change]) -> str:
    parts = []
    for status in ("added", "changed", "removed"):
        group = [c for c in changes if c.status == status]
        a = sum(c.tier == "A" for c in group)
        parts.append(f"{len(group)} {status} (A {a}, B {len(group) - a})")
    covered = sum(bool(c.rules) for c in changes)
    return f"{', '.join(parts)}; {covered} of {len(changes)} covered by a rule"


def item_json(item: Item | None) -> dict | None:
    if item is None:
        return None
    out = dataclasses.asdict(item)
    out["reads"] = sorted(item.reads)
    return out


def to_json(result: dict) -> dict:
    return {**{k: v for k, v in result.items() if k not in ("changes", "moved")},
            "summary": summary(result["changes"]),
            "changes": [change_json(c) for c in result["changes"]],
            "moved": [change_json(c) for c in result["moved"]]}


def change_json(c: Change) -> dict:
    return {"status": c.status, "file": c.file, "what": c.what, "tier": c.tier, "reason": c.reason,
            "rules": list(c.rules), "a": item_json(c.a), "b": item_json(c.b)}


# ---------------------------------------------------------------------------------------------
# --expect: a maintainer's list of the changes a manual read found.
def load_expect(path: Path, repo_name: str, ref_a: str, ref_b: str) -> list[dict]:
    """Lines: ID REPO A..B[,A..B] STATUS[:KIND] FILE TEXT [# note]. STATUS is added, changed, removed,
    any (one of those) or absent (no such item may be listed); KIND (raise, field, ...) narrows it.
    FILE and TEXT are case-insensitive substrings of the path and of the item's message, target,
    value or function."""
    rows = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        line = line.split(" # ", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split(maxsplit=5)
        if len(parts) < 6:
            raise SystemExit(f"graphdiff: {path}:{n}: want ID REPO A..B STATUS FILE TEXT")
        cid, repo, span, status, file_sub, text = parts
        status, _, kind = status.partition(":")
        if repo == repo_name and f"{ref_a}..{ref_b}" in span.split(","):
            rows.append({"id": cid, "status": status, "kind": kind, "file": file_sub, "text": text,
                         "line": n})
    return rows


def matches(row: dict, ch: Change) -> bool:
    if row["status"] not in ("any", "absent") and row["status"] != ch.status:
        return False
    if row["kind"] and row["kind"] != ch.item.kind:
        return False
    paths = {ch.file} | {i.path for i in (ch.a, ch.b) if i}
    if not any(row["file"] in p for p in paths):
        return False
    hay = " ".join(f"{i.target} {i.text} {i.func}" for i in (ch.a, ch.b) if i).lower()
    return row["text"].lower() in hay


def check_expect(result: dict, path: Path, out=sys.stdout) -> int:
    """Print which expect lines hold and what no line lists; 1 when a line does not hold."""
    rows = load_expect(path, result["repo"], result["ref_a"], result["ref_b"])
    changes = result["changes"]
    failed, listed = [], set()
    for row in rows:
        hits = [i for i, ch in enumerate(changes) if matches(row, ch)]
        listed.update(hits)
        if (row["status"] == "absent") == bool(hits):
            failed.append(row)
    ids = ", ".join(dict.fromkeys(r["id"] for r in rows)) or "none"
    lines = [f"\nexpect ({path}): {len(rows) - len(failed)} of {len(rows)} lines hold (ids: {ids})"]
    for row in failed:
        want = "not to find" if row["status"] == "absent" else "to find"
        lines.append(f"  MISSING {row['id']} (line {row['line']}): expected {want} {row['status']} "
                     f"{row['kind']} {row['file']} \"{row['text']}\"")
    unlisted = [ch for i, ch in enumerate(changes) if i not in listed]
    lines.append(f"  found but listed by no line: {len(unlisted)}")
    lines += ["  " + show(ch).strip() for ch in unlisted]
    print("\n".join(lines), file=out)
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("repo", choices=sorted(SOURCES))
    ap.add_argument("ref_a")
    ap.add_argument("ref_b")
    ap.add_argument("--git-dir", help="bare mirror (default: $CGLINT_MCORE_GIT / $CGLINT_BRIDGE_GIT "
                                      "or the /work/.mirror paths)")
    ap.add_argument("--rules", default=str(RULES_DIR), help="cglint rule packs (default: %(default)s)")
    ap.add_argument("--json", action="store_true", help="print JSON")
    ap.add_argument("-v", "--verbose", action="store_true", help="print conditions and texts")
    ap.add_argument("--expect", metavar="FILE", help="check the changes FILE lists for this range")
    args = ap.parse_args(argv)

    repo = Repo(args.git_dir or DEFAULT_GIT[args.repo])
    for ref in (args.ref_a, args.ref_b):
        if repo.rev(ref) is None:
            raise SystemExit(f"graphdiff: {ref}: no such commit in {repo.git_dir}")
    result = diff_repo(args.repo, repo, args.ref_a, args.ref_b, Path(args.rules))
    if args.json:
        print(json.dumps(to_json(result), indent=1))
    else:
        print_text(result, args.verbose)
    if not args.expect:
        return 0
    # With --json the check goes to stderr, so that stdout stays one JSON document.
    return check_expect(result, Path(args.expect), sys.stderr if args.json else sys.stdout)


if __name__ == "__main__":
    sys.exit(main())
