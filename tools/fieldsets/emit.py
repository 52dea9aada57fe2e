# SPDX-License-Identifier: MIT
"""The extracted sets as rules/fields.yaml: each name once per run of versions that have it,
names grouped by the same runs, every group a range in the packs' syntax."""
import textwrap


def runs(versions, present):
    """The ranges ('>=0.16 <0.18', '0.19', '' for all) of the runs of 'versions' in 'present'."""
    out, i = [], 0
    while i < len(versions):
        if versions[i] not in present:
            i += 1
            continue
        j = i
        while j + 1 < len(versions) and versions[j + 1] in present:
            j += 1
        lo = f">={versions[i]}" if i > 0 else ""
        hi = f"<{versions[j + 1]}" if j + 1 < len(versions) else ""
        out.append(versions[i] if i == j and i > 0 and hi else " ".join(x for x in (lo, hi) if x))
        i = j + 1
    return out


def groups(versions, sets):
    """[(range, sorted names)] from {version: names}, ranges in version order."""
    by_range = {}
    for name in set().union(*sets.values()):
        for r in runs(versions, {v for v in versions if name in sets.get(v, ())}):
            by_range.setdefault(r, []).append(name)
    order = {r: k for k, r in enumerate(sorted(by_range, key=lambda r: (r != "", r)))}
    return [(r, sorted(by_range[r])) for r in sorted(by_range, key=order.get)]


def chunks(names, most=3000):
    """'names' in runs of at most 'most' characters: cglint embeds each as a C string, and C
    compilers need not take one over 4095."""
    out, cur = [], []
    for n in names:
        if cur and len(" ".join(cur + [n])) > most:
            out.append(cur)
            cur = []
        cur.append(n)
    return out + [cur] if cur else out


def _names(names):
    return "\n".join(textwrap.wrap(" ".join(names), 96, break_long_words=False, break_on_hyphens=False,
                                   initial_indent="      ", subsequent_indent="      "))


def write(path, header, bridge_versions, sections, mcore_versions, options):
    """sections: {version: {section: names}}; options: {version: {"base": [...], "modelopt": [...]}}."""
    lines = [f"# {l}" if l else "#" for l in header] + ["pack: fields", "fields:"]
    for section in sorted({s for v in sections.values() for s in v}):
        for r, all_names in groups(bridge_versions, {v: sections[v].get(section, set()) for v in sections}):
            for names in chunks(all_names):
                lines += [f"  - section: {section!r}" if not section else f"  - section: {section}",
                          *([f'    bridge: "{r}"'] if r else []), "    names: >-", _names(names)]
    lines.append("options:")
    for extra in ("base", "modelopt"):
        for r, all_names in groups(mcore_versions, {v: set(options[v][extra]) for v in options}):
            for names in chunks(all_names):
                lines += ["  - program: megatron-lm", *([f"    extra: {extra}"] if extra != "base" else []),
                          *([f'    mcore: "{r}"'] if r else []), "    names: >-", _names(names)]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
