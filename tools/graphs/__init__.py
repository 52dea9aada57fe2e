# SPDX-License-Identifier: MIT
"""graphs: the pipeline behind tools/graphdiff.py, one module a stage of its data flow.

  sources.py  which files to read (SOURCES) and the bare git mirror they are read from (Repo);
              pair_files() pairs a repository's source files at two refs, following renames.
  extract.py  one file's text at one ref -> its items (Item): checks, rewrites, derived values,
              config fields and flags, from the syntax tree.
  match.py    the items of both refs -> changes (Change): keys matched across the refs, leftovers
              paired as reworded or moved, the CUDA-graph tier of each (Relevance) and the rules
              whose mirrors or message cover it (Coverage, read from rules/*.yaml); diff_repo()
              runs the whole pipeline for one range.

tools/graphdiff.py is the command: its arguments, the text and JSON output and --expect.
Python 3.11 standard library only.
"""
