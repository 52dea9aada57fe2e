# SPDX-License-Identifier: MIT
"""The extracted sets as rules/fields.yaml: per section (or program), the runs of versions its
names exist in, and every name once, sorted, with the runs it holds as a suffix ('name@1,3';
none: the first run). cglint looks a name up by binary search over the list as the build
compiled it, with nothing to index at run time."""


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


def table(versions, sets):
    """([ranges], [name or name@i,j]) from {version: names}: the ranges the names hold, the
    commonest first (it goes without a suffix)."""
    held = {name: runs(versions, {v for v in versions if name in sets.get(v, ())})
            for name in set().union(*sets.values())}
    count = {}
    for rs in held.values():
        for r in rs:
            count[r] = count.get(r, 0) + 1
    ranges = sorted(count, key=lambda r: (-count[r], r))
    at = {r: k for k, r in enumerate(ranges)}
    names = []
    for name in sorted(held, key=lambda n: n.encode()):     # byte order, as cglint compares
        ks = sorted(at[r] for r in held[name])
        names.append(name if ks == [0] else f"{name}@{','.join(map(str, ks))}")
    return ranges, names


def _entry(lines, head, key, ranges, names):
    lines += head + [f"    {key}: [{', '.join(f'{chr(34)}{r}{chr(34)}' for r in ranges)}]", "    names:"]
    lines += [f"      - {n}" for n in names]


def write(path, header, bridge_versions, sections, mcore_versions, options):
    """sections: {version: {section: names}}; options: {version: {"base": [...], "modelopt": [...]}}."""
    lines = [f"# {l}" if l else "#" for l in header] + ["pack: fields", "fields:"]
    for section in sorted({s for v in sections.values() for s in v}):
        ranges, names = table(bridge_versions, {v: sections[v].get(section, set()) for v in sections})
        _entry(lines, [f"  - section: {section!r}" if not section else f"  - section: {section}"], "bridge", ranges, names)
    lines.append("options:")
    for extra in ("base", "modelopt"):
        ranges, names = table(mcore_versions, {v: set(options[v][extra]) for v in options})
        _entry(lines, ["  - program: megatron-lm", *([f"    extra: {extra}"] if extra != "base" else [])], "mcore",
               ranges, names)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
