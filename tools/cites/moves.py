# SPDX-License-Identifier: MIT
"""moves: where the cited code is at another ref, and the edits that follow.

Move and locate (locate_py, locate_text, exact, nearest, carry): where a place's code is at
another ref; move_pair and to_ref_for: every place of one pair of refs; rewrite (--rewrite)
and add_key (--add): the pack edits.
"""
import ast
import difflib
import os
import re
import tempfile
from dataclasses import dataclass

from .checker import fmt_range, head
from .packs import SAME, Usage
from .trees import children, cover, pyfile, qualname, span


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


def applies_to_branch(entry, project):
    """Whether an entry's own range holds a development target: no range, or one open above."""
    spec = str(entry.get(project, "")).strip().strip('"')
    if not spec or spec == "any":
        return True
    if spec == "none":
        return False
    return "main" in spec and "<main" not in spec or ("<" not in spec and re.search(r"(>=|>)\s*[\d.dev]", spec) is not None)


def add_key(key, located):
    """--add KEY: for each citation of --from whose every place moved cleanly to --to, a new
    mirrors line KEY beside it with the places at --to, so a development target cites its own
    lines. 'located': move_pair's (site, move) pairs. A citation with a place that changed, went,
    sits in another file, or is pinned to another commit is left for a person, and said."""
    project = key.split()[0]
    by_cite = {}
    for site, mv in located:
        if not site.doc and site.loc.lines:
            by_cite.setdefault(id(site.cite), (site.cite, []))[1].append((site, mv))
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
    """Print where each place cited at `old` is at `new`: the counts, the edits that --rewrite
    would make (moved places of `old` itself, not of the Megatron Core Bridge pins), and each
    place with where it went (for --add)."""
    counts, edits, located = dict.fromkeys(("in place", "moved", "changed", "gone"), 0), [], []
    old_sha, sub_new = repo.sha(old), repo.submodule(new) if repo.name == "bridge" else None
    print(f"# {repo.name}: {old} ({old_sha[:10]}) -> {new} ({repo.sha(new)[:10]})")
    for site in sites:
        target = to_ref_for(site, repo, old_sha, new, sub_new, resolver)
        if not target:
            continue
        mv = locate(site, target)
        located.append((site, mv))
        counts[mv.status] += 1
        where = f"{mv.path}:{fmt_range(mv.lines)[1:]}" if mv.lines else mv.path
        at = f": {where} @{new if target == new else target[:10]}" if mv.status != "in place" and where else ""
        print(f"{head(site)}: {mv.status}{at}" + (f" ({mv.detail})" if mv.detail else ""))
        if mv.status == "moved" and mv.lines and site.loc.span and mv.path == site.path and target == new and not site.doc:
            edits.append((site.cite, site.loc.span, fmt_range(mv.lines)[1:]))
    return counts, edits, located


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
