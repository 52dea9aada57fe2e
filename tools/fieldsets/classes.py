# SPDX-License-Identifier: MIT
"""The dataclass fields of a tree, read from its syntax trees.

Tree (every module of one or more git trees at a ref, parsed once), the classes they define
with their bases resolved through the modules' imports, and a class's dataclass fields with
its bases' (what dataclasses.fields() gives). No upstream code is imported: this runs at any
ref with the standard library; tests/realtree/fields_exec.py checks it against the real
classes where they import.
"""
import ast
import subprocess
from dataclasses import dataclass, field


@dataclass
class Klass:
    qual: str                   # module.Class
    module: str
    bases: list                 # the base expressions, resolved lazily
    is_dataclass: bool
    ann: dict                   # the fields its body declares (dataclass only), in order -> annotation
    attrs: list                 # the other public names its body defines: methods, properties, class values
    resolved: list = field(default_factory=list)


def _git(git_dir, *args, data=None):
    r = subprocess.run(["git", "--git-dir", git_dir, *args], input=data, capture_output=True, check=True)
    return r.stdout


def read_tree(git_dir, ref, prefixes):
    """{path: text} of the .py files under 'prefixes' at 'ref', read in one git process."""
    listing = _git(git_dir, "ls-tree", "-r", ref, "--", *prefixes).decode()
    entries = [(l.split()[2], l.split("\t", 1)[1]) for l in listing.splitlines()
               if l.split()[1] == "blob" and l.endswith(".py")]
    out = _git(git_dir, "cat-file", "--batch", data="".join(s + "\n" for s, _ in entries).encode())
    files, pos = {}, 0
    for sha, path in entries:
        nl = out.index(b"\n", pos)
        size = int(out[pos:nl].split()[2])
        files[path] = out[nl + 1:nl + 1 + size].decode("utf-8", "replace")
        pos = nl + 1 + size + 1
    return files


def module_name(path, strip):
    """src/megatron/bridge/x.py -> megatron.bridge.x (strip 'src/'); pkg/__init__.py -> pkg."""
    if strip and path.startswith(strip):
        path = path[len(strip):]
    mod = path[:-3].replace("/", ".")
    return mod[:-9] if mod.endswith(".__init__") else mod


def _is_dataclass_decorator(d):
    d = d.func if isinstance(d, ast.Call) else d
    return (isinstance(d, ast.Name) and d.id == "dataclass") or (isinstance(d, ast.Attribute) and d.attr == "dataclass")


def _is_classvar(ann):
    ann = ann.value if isinstance(ann, ast.Subscript) else ann
    name = ann.attr if isinstance(ann, ast.Attribute) else ann.id if isinstance(ann, ast.Name) else ""
    return name == "ClassVar"


class Tree:
    """The classes of the modules given, with each module's imports."""

    def __init__(self):
        self.classes = {}       # qual -> Klass
        self.imports = {}       # module -> {local name: (module, name or None)}
        self.is_pkg = set()

    def add(self, files, strip=""):
        for path, text in files.items():
            if "class " not in text and "import" not in text:
                continue
            mod = module_name(path, strip)
            if path.endswith("__init__.py"):
                self.is_pkg.add(mod)
            try:
                tree = ast.parse(text)
            except SyntaxError:
                continue
            self._module(mod, tree)
        return self

    def _module(self, mod, tree):
        imps = self.imports.setdefault(mod, {})
        pkg = mod if mod in self.is_pkg else mod.rpartition(".")[0]
        for node in tree.body:
            self._stmt(mod, pkg, imps, node)

    def _stmt(self, mod, pkg, imps, node):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = pkg.split(".")
                up = parts[:len(parts) - (node.level - 1)] if node.level > 1 else parts
                base = ".".join(up + ([node.module] if node.module else []))
            for a in node.names:
                imps[a.asname or a.name] = (base, a.name)
        elif isinstance(node, ast.Import):
            for a in node.names:
                imps[a.asname or a.name.split(".")[0]] = (a.name if a.asname else a.name.split(".")[0], None)
        elif isinstance(node, ast.ClassDef):
            dc = any(_is_dataclass_decorator(d) for d in node.decorator_list)
            ann = {}
            if dc:
                for st in node.body:
                    if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and not _is_classvar(st.annotation):
                        ann[st.target.id] = st.annotation
            attrs = []
            for st in node.body:
                if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    attrs.append(st.name)
                elif isinstance(st, ast.Assign):
                    attrs += [t.id for t in st.targets if isinstance(t, ast.Name)]
                elif isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and st.target.id not in ann:
                    attrs.append(st.target.id)
            attrs = [a for a in attrs if not a.startswith("_")]
            self.classes[f"{mod}.{node.name}"] = Klass(f"{mod}.{node.name}", mod, node.bases, dc, ann, attrs)
        elif isinstance(node, (ast.If, ast.Try)):
            # imports under "if HAVE_X:" / "try:" still bind the name
            for part in (node.body, getattr(node, "orelse", []), *[h.body for h in getattr(node, "handlers", [])]):
                for st in part:
                    self._stmt(mod, pkg, imps, st)

    def resolve(self, mod, name, depth=0):
        """The class 'name' means in module 'mod' (a dotted name allowed), or None."""
        if depth > 12:
            return None
        head, _, rest = name.partition(".")
        if not rest and f"{mod}.{name}" in self.classes:
            return f"{mod}.{name}"
        imp = self.imports.get(mod, {}).get(head)
        if imp is None:
            return None
        src, orig = imp
        if orig is None:                        # import a.b [as c]: c.X
            return self.resolve(src, rest, depth + 1) if rest else None
        if rest:                                # from a import b; b.X: b a module or a class
            return self.resolve(f"{src}.{orig}", rest, depth + 1)
        if f"{src}.{orig}" in self.classes:
            return f"{src}.{orig}"
        return self.resolve(src, orig, depth + 1) if src in self.imports else None

    def expr_names(self, mod, e):
        """The classes a base or annotation expression names (a Union's, an Optional's)."""
        if isinstance(e, ast.Constant) and isinstance(e.value, str):
            try:
                e = ast.parse(e.value, mode="eval").body
            except SyntaxError:
                return []
        out = []
        for n in ast.walk(e):
            if isinstance(n, (ast.Name, ast.Attribute)):
                dotted = _dotted(n)
                q = dotted and self.resolve(mod, dotted)
                if q and q not in out:
                    out.append(q)
        return out

    def bases(self, qual):
        k = self.classes[qual]
        if not k.resolved and k.bases:
            k.resolved = [q for b in k.bases for q in self.expr_names(k.module, b)[:1]]
        return k.resolved

    def fields(self, qual, seen=None):
        """dataclasses.fields() of a class: its bases' (the last base first, as the MRO
        collects them) then its own."""
        seen = seen if seen is not None else set()
        if qual in seen or qual not in self.classes:
            return []
        seen.add(qual)
        out = []
        for b in reversed(self.bases(qual)):
            for f in self.fields(b, seen):
                if f not in out:
                    out.append(f)
        for f in self.classes[qual].ann:
            if f not in out:
                out.append(f)
        return out

    def names(self, qual):
        """What hasattr() finds on an instance beyond __init__'s own: the fields and every public
        method, property and class value of the class and its bases."""
        out = set(self.fields(qual))
        for q in self.ancestors(qual) | {qual}:
            out.update(self.classes[q].attrs)
        return out

    def ancestors(self, qual, seen=None):
        """Every class of the trees 'qual' derives from."""
        seen = seen if seen is not None else set()
        for b in self.bases(qual):
            if b in self.classes and b not in seen:
                seen.add(b)
                self.ancestors(b, seen)
        return seen

    def subclasses(self, roots):
        """'roots' and every class of the tree that derives from one of them."""
        keep = set(roots)
        changed = True
        while changed:
            changed = False
            for q in self.classes:
                if q not in keep and any(b in keep for b in self.bases(q)):
                    keep.add(q)
                    changed = True
        return keep

    def field_classes(self, qual):
        """{field: [the classes its annotation names]} of a dataclass's own body."""
        k = self.classes[qual]
        return {f: self.expr_names(k.module, a) for f, a in k.ann.items()}


def _dotted(n):
    parts = []
    while isinstance(n, ast.Attribute):
        parts.append(n.attr)
        n = n.value
    if isinstance(n, ast.Name):
        parts.append(n.id)
        return ".".join(reversed(parts))
    return None
