# SPDX-License-Identifier: MIT
"""graphdiff's matching: the items of two refs -> changes (Change). Items are keyed without line
numbers (keyed), leftovers paired as reworded or moved (pair_leftovers), each change given its
CUDA-graph tier (Relevance) and the rules that cover it (Coverage, from the `mirrors:` and
`message:` lines of cglint's rule packs, read by load_rules). diff_repo() runs the pipeline for
one repository and range."""

from __future__ import annotations

import dataclasses
import difflib
import json
import re
from pathlib import Path

from graphs.extract import GRAPH_RE, Item, extract, norm
from graphs.sources import Repo, pair_files, source_kinds

# Sections of cglint's rule language whose names are config fields (env.*, target.* are not).
RULE_SECTIONS = (
    "model", "args", "perf", "ddp", "dataset", "optimizer", "comm_overlap", "mixed_precision",
    "rng", "rerun_state_machine", "dist", "validation", "train", "checkpoint", "scheduler",
)
KIND_ORDER = ("raise", "assert", "warn", "rewrite", "derive", "field", "flag")


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

