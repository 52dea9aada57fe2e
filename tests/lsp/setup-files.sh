# SPDX-License-Identifier: MIT
# shellcheck shell=bash disable=SC2154  # tmp, bin and here are the sourcing script's
# Sourced by nvim-e2e.sh and eglot-e2e.sh: the documented editor set-up (docs/editors.md, the block
# after "<!-- tests/lsp/$1 runs the next block -->") into $tmp/setup/$2, and one file of each kind
# the set-up covers into $tmp/kinds/ (a YAML config, a launch script, a Python recipe, a CUDA
# source), each with the rule it must show; `cglint` on PATH is the one under test.
# usage: setup_files MARKER FILE   (needs $tmp, $bin, $here, and the caller's $tmp/recipe.yaml)
setup_files() {
	mkdir -p "$tmp/setup" "$tmp/kinds" "$tmp/path"
	ln -sf "$bin" "$tmp/path/cglint"
	python3 - "$here/../../docs/editors.md" "$1" "$tmp/setup/$2" <<'PY' || return 1
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r"<!-- tests/lsp/" + re.escape(sys.argv[2]) + r" runs the next block[^>]*-->\n```\w+\n(.*?)```", text, re.S)
if not m:
    sys.exit(f"docs/editors.md: no block marked for tests/lsp/{sys.argv[2]}")
open(sys.argv[3], "w").write(m.group(1))
PY
	cp "$tmp/recipe.yaml" "$tmp/kinds/recipe.yaml"       # the callers' config: CG101
	cat >"$tmp/kinds/train.sh" <<'SH'
#!/bin/bash
export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
torchrun --nproc-per-node 8 pretrain_gpt.py \
    --cuda-graph-impl transformer_engine --te-rng-tracker
SH
	cat >"$tmp/kinds/recipe.py" <<'PY'
def llama3_8b_graphs_config():
    cfg = ConfigContainer(model=Llama3ModelProvider8B(), rng=RNGConfig(seed=1234))
    cfg.model.cuda_graph_impl = "transformer_engine"
    cfg.model.cuda_graph_modules = ["attn"]
    cfg.rng.te_rng_tracker = False
    cfg.model.use_te_rng_tracker = False
    return cfg
PY
	cp "$here/../../fixtures/examples/capture.cu" "$tmp/kinds/capture.cu"
	# file and the rule it must show, one a line
	printf '%s\n' "recipe.yaml CG101" "train.sh CG201" "recipe.py CG101" "capture.cu CG301" >"$tmp/kinds/expect"
}
