# SPDX-License-Identifier: MIT
"""graphdiff's sources: the files that validate configs per repository (SOURCES), read from a
bare git mirror by object id (Repo), and paired between two refs across renames (pair_files)."""

from __future__ import annotations

import fnmatch
import subprocess

# ---------------------------------------------------------------------------------------------
# Sources: (glob, kinds). A glob's `*` also matches '/'. A file absent at a ref is fine.
# Kinds: checks (raise/assert/warn), rewrites, derive, fields, flags. Add a row to extend.
ALL = ("checks", "rewrites", "derive", "fields", "flags")
SOURCES: dict[str, list[tuple[str, tuple[str, ...]]]] = {
    "mcore": [
        ("megatron/core/transformer/transformer_config.py", ALL),
        ("megatron/core/model_parallel_config.py", ALL),
        ("megatron/core/distributed/distributed_data_parallel_config.py", ALL),
        ("megatron/core/distributed/fsdp/mcore_fsdp_adapter.py", ALL),
        ("megatron/core/optimizer/*config*.py", ALL),
        ("megatron/core/optimizer/fully_sharded_optimizer.py", ALL),
        ("megatron/core/transformer/cuda_graphs.py", ALL),
        ("megatron/core/transformer/cuda_graph_config.py", ALL),
        ("megatron/core/full_cuda_graph.py", ALL),
        ("megatron/core/tensor_parallel/gtp_cuda_graphs.py", ALL),
        ("megatron/core/transformer/moe/token_dispatcher.py", ALL),
        ("megatron/core/tensor_parallel/random.py", ALL),
        ("megatron/training/arguments.py", ALL),
        ("megatron/training/training.py", ALL),
        ("megatron/training/config/training_config.py", ("fields",)),
    ],
    "bridge": [
        ("src/megatron/bridge/training/config.py", ALL),
        ("src/megatron/bridge/training/comm_overlap.py", ALL),
        ("src/megatron/bridge/training/mixed_precision.py", ALL),
        ("src/megatron/bridge/training/gpt_step.py", ALL),
        ("src/megatron/bridge/utils/cuda_graph.py", ALL),
        ("src/megatron/bridge/models/transformer_config.py", ALL),
        ("src/megatron/bridge/models/gpt_provider.py", ALL),
        # Model providers carry per-model defaults of graph fields (vision_cuda_graph_*).
        ("src/megatron/bridge/models/*provider*.py", ("checks", "rewrites", "fields")),
        ("src/megatron/bridge/data/builders/energon.py", ALL),
        ("scripts/performance/argument_parser.py", ALL),
        ("scripts/performance/utils/overrides.py", ALL),
    ],
}


# ---------------------------------------------------------------------------------------------
# Git access (bare mirrors: everything is read by object id).
class Repo:
    def __init__(self, git_dir: str):
        self.git_dir = git_dir
        self._revs: dict[str, str | None] = {}
        self._trees: dict[str, dict[str, str]] = {}

    def git(self, *args: str) -> str | None:
        res = subprocess.run(["git", "--git-dir", self.git_dir, *args],
                             capture_output=True, text=True)
        return res.stdout if res.returncode == 0 else None

    def rev(self, ref: str) -> str | None:
        if ref not in self._revs:
            out = self.git("rev-parse", "--verify", "--quiet", ref + "^{commit}")
            self._revs[ref] = out.strip() if out else None
        return self._revs[ref]

    def tree(self, ref: str) -> dict[str, str]:
        """path -> blob id of every file at ref."""
        if ref not in self._trees:
            out = self.git("ls-tree", "-r", "--full-tree", ref) or ""
            files = {}
            for line in out.splitlines():
                meta, path = line.split("\t", 1)
                _, typ, blob = meta.split()
                if typ == "blob":
                    files[path] = blob
            self._trees[ref] = files
        return self._trees[ref]

    def blob(self, blob_id: str) -> str:
        return self.git("cat-file", "blob", blob_id) or ""

    def renames(self, a: str, b: str) -> dict[str, str]:
        out = self.git("diff", "--name-status", "-M", "--diff-filter=R", a, b) or ""
        pairs = {}
        for line in out.splitlines():
            parts = line.split("\t")
            if len(parts) == 3:
                pairs[parts[1]] = parts[2]
        return pairs


def source_kinds(repo: str, path: str) -> tuple[str, ...] | None:
    """The kinds to extract from path (first matching row), or None when it is no source."""
    for pattern, kinds in SOURCES[repo]:
        if fnmatch.fnmatchcase(path, pattern):
            return kinds
    return None


def pair_files(repo_name: str, repo: Repo, a: str, b: str) -> list[tuple[str, str | None, str | None]]:
    """(canonical path, path at a, path at b) for every source file, following renames a -> b."""
    tree_a, tree_b = repo.tree(a), repo.tree(b)
    renames = repo.renames(a, b)
    back = {new: old for old, new in renames.items()}
    canon: dict[str, list[str | None]] = {}
    for path in tree_b:
        if source_kinds(repo_name, path):
            old = back.get(path, path)
            canon[path] = [old if old in tree_a else None, path]
    for path in tree_a:
        new = renames.get(path, path)
        if source_kinds(repo_name, path) or source_kinds(repo_name, new):
            entry = canon.setdefault(new, [None, new if new in tree_b else None])
            entry[0] = path
    return sorted((c, pa, pb) for c, (pa, pb) in canon.items())

