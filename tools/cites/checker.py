# SPDX-License-Identifier: MIT
"""check: whether the cited lines hold what the rule is about.

Checker (a resolved place: its range, cuts, symbol, quotes, numbers, and whether a rule's
lines hold its check or a step's lines an effect); the line references in a rule's doc
text (doc_sites, check_doc_site); and how a report names a place (head, fmt_range).
"""
import ast
import os
import re

from .packs import EXACT, PATH, RANGE, RELEASES, SAME, TEXT_SUFFIXES, Cite, Loc, parse_range, tag_of, versions_in
from .trees import Site, citable, cover, enclosing, is_def, is_values, pyfile, similarity, span, where


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


def head(site):
    where = site.path or site.loc.path
    rng = f":{site.loc.lines[0]}" + (f"-{site.loc.lines[1]}" if site.loc.lines[1] != site.loc.lines[0] else "") if site.loc.lines else ""
    sym = f" ({site.loc.symbol})" if site.loc.symbol and not site.loc.lines else ""
    origin = f"{site.cite.pack}:{site.cite.line}"
    key = " (doc)" if site.doc else f" [{site.cite.key}]"
    return f"{origin}: {site.cite.id}{key} {where}{rng}{sym} @{site.label}"
