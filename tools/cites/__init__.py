# SPDX-License-Identifier: MIT
"""The modules of tools/citecheck.py, in the order the data flows through them.

packs    the versions the packs name (RELEASES, MAIN), where the trees are looked for, the
         errors (Usage, Missing); the packs' citations (Cite, load_packs) and what each says
         (parse_cite, Loc)
trees    the upstream trees (Repo, find_repo), places resolved in them (Site, Resolver), Python
         files parsed (PyFile, pyfile) and the helpers that read their statements
checker  check: whether the cited lines hold what the rule is about (Checker, doc_sites), and
         how a report names a place (head)
moves    moves: where the cited code is at another ref (Move, locate, move_pair), --rewrite and
         --add (rewrite, add_key)

citecheck.py itself parses the arguments and runs the check and moves commands.
"""
