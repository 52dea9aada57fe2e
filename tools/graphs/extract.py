# SPDX-License-Identifier: MIT
"""graphdiff's extraction: the items (Item) of one source file at one ref, read from its syntax
tree (Extractor): raise / assert / warn checks with their conditions and messages, rewrites in
validation functions, values derived from config fields in graph-named code, config dataclass
fields and argparse flags. extract() is the entry: file text -> items."""

from __future__ import annotations

import ast
import dataclasses
import re
import sys

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
