# SPDX-License-Identifier: MIT
"""The rule packs and what their citations say.

The versions the packs name and the tag each stands for (RELEASES, MAIN), where the upstream
trees are looked for (PLACES, ENV), the thresholds and errors the tool shares (Usage,
Missing); every `mirrors:` entry of rules/*.yaml as a Cite (load_packs); and a citation's
text read into the places it names (parse_cite, Loc, split_parens, parse_paren).
"""
import glob
import os
import re
from dataclasses import dataclass, field


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


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
