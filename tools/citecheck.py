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
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))     # the cites package beside this file

from cites.checker import Checker, check_doc_site, doc_sites, head  # noqa: E402
from cites.moves import add_key, move_pair, rewrite  # noqa: E402
from cites.packs import DEFAULT_PAIRS, ROOT, Missing, Usage, load_packs  # noqa: E402
from cites.trees import Resolver, find_repo  # noqa: E402


# --- the commands ------------------------------------------------------------------------------

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
    edits, located, status = [], [], 0
    for repo, old, new in pairs:
        if not repo.sha(new):
            raise Usage(f"no ref {new} in {repo.name}")
        counts, found, where = move_pair(sites, repo, old, new, resolver)
        edits += found
        located += where
        print(f"citecheck: {old} -> {new}: {sum(counts.values())} places: " + ", ".join(f"{v} {k}" for k, v in counts.items()))
        status = max(status, 1 if counts["moved"] + counts["changed"] + counts["gone"] else 0)
    if args.rewrite:
        print(f"citecheck: rewrote {rewrite(edits)} line ranges in {args.rules}")
    if args.add:
        added, skipped = add_key(args.add, located)
        for why in skipped:
            print(f"citecheck: not added: {why}")
        print(f"citecheck: added {added} '{args.add}' citations in {args.rules}")
    return status


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
