#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark cglint's Python front-end against `python3 -m py_compile` on the same recipe files:
#   tree       Megatron-Bridge's src/megatron/bridge/recipes and perf_recipes, when a checkout is
#              found (CGLINT_BRIDGE_TREE, else /tmp/mb6, ../Megatron-Bridge)
#   inside     the same folders named from inside the package (cd src/megatron/bridge; recipes
#              perf_recipes), as a Bridge developer runs it: imports reach the package root above
#              the working folder and come back down to files that are inputs too
#   generated  N recipe-like modules from tests/bench/gen_recipes.py, always
# Each set: one cglint process over the folders, against py_compile one process per file (as a
# pre-commit hook runs it) and py_compile once for all the files.
#
# usage: tests/bench/bench_py.sh [BUILD_DIR] [N]
#   BUILD_DIR    folder holding the cglint binary (default: build)
#   N            number of generated recipe modules (default: 290, as many as v0.6.0 has)
# environment:
#   RUNS         timed runs of each measurement (default: 5, after 1 warm-up); medians reported
#   SECTIONS     which to run (default: "tree inside generated lsp"); lsp: a 10-line recipe calling Bridge's
#                llama3_8b_pretrain_config(), re-checked by `cglint lsp` after each edit against a
#                cold `cglint FILE` (tests/bench/bench_lsp.py), Megatron-LM found as
#                CGLINT_MCORE_TREE, else /tmp/mlmfull, ../Megatron-LM
#   SEED         generator seed (default: the generator's own)
#   CGLINT_BRIDGE_TREE   a Megatron-Bridge checkout (its root or its src/)
#
# py_compile writes its .pyc files under a scratch PYTHONPYCACHEPREFIX (the tree may be read-only),
# and compiles every time (it does not look at a cache). Timing is wall clock from bash's
# $EPOCHREALTIME around each process or loop, output sent to /dev/null. Only medians and ratios
# are reported; nothing is asserted about times.
set -eu

build_dir=${1:-build}
n=${2:-290}
runs=${RUNS:-5}
here=$(cd "$(dirname "$0")" && pwd)
cglint=$(cd "$build_dir" 2>/dev/null && pwd)/cglint     # absolute: the inside section runs elsewhere

[ -x "$cglint" ] || { echo "bench_py.sh: no cglint binary at $cglint" >&2; exit 2; }
command -v python3 >/dev/null || { echo "bench_py.sh: python3 not found" >&2; exit 2; }
# the interpreter python3 names, called directly: a launcher in front of it (pyenv's shim is a
# bash script that runs pyenv) would add its own start-up to every py_compile time
py=$(python3 -c 'import sys; print(sys.executable)')
[ -x "$py" ] || { echo "bench_py.sh: python3 names no interpreter ($py)" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cglint-bench-py.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export PYTHONPYCACHEPREFIX=$tmp/pycache

# shellcheck source=tests/bench/lib.sh
. "$here/lib.sh"

# py_compile once per file, as a pre-commit hook with pass_filenames and one process each
py_compile_each() {
	local f
	for f in "$@"; do "$py" -m py_compile "$f" || true; done
}

# --- one file set ----------------------------------------------------------------------
section() {
	local label=$1
	shift
	local -a dirs=("$@") files
	mapfile -t files < <(find "${dirs[@]}" -name '*.py' -type f | sort)
	local lines rc=0 summary
	lines=$(cat "${files[@]}" | wc -l)
	"$cglint" --format json "${dirs[@]}" >"$tmp/cglint.json" 2>"$tmp/cglint.err" || rc=$?
	if [ "$rc" -gt 1 ]; then
		echo "bench_py.sh: cglint exited $rc on $label (usage/input/internal error), timings would be meaningless" >&2
		head -n 5 "$tmp/cglint.err" >&2
		exit 1
	fi
	summary=$(python3 - "$tmp/cglint.json" <<-'EOF'
	import json, re, sys
	d = json.load(open(sys.argv[1]))["diagnostics"]
	sev = {s: sum(x["severity"] == s for x in d) for s in ("error", "warning", "note")}
	units = {(x["path"], m.group(1)) for x in d for m in [re.search(r"\(in ([^)]*)\)$", x["message"])] if m}
	print(f"{sev['error']} errors / {sev['warning']} warnings / {sev['note']} notes in "
	      f"{len({x['path'] for x in d})} files, {len(units)} functions with findings")
	EOF
	)
	local bad=0
	py_compile_each "${files[@]}" 2>"$tmp/pyc.err" || true
	bad=$(grep -c 'Error' "$tmp/pyc.err" || true)
	echo "== $label: ${#files[@]} .py files, $lines lines"
	echo "cglint:     $("$cglint" --version) (exit $rc) -- $summary"
	echo "py_compile: $py, $("$py" --version) -- $bad files with errors"

	local cm cn cx cc em en ex om on ox oc
	read -r cm cn cx cc < <(bench_cpu "$runs" "$cglint" --format json "${dirs[@]}")
	read -r em en ex < <(bench "$runs" py_compile_each "${files[@]}")
	read -r om on ox oc < <(bench_cpu "$runs" "$py" -m py_compile "${files[@]}")
	local fmt="%-38s %5s %11s %9s %9s\n"
	printf "$fmt" tool runs "median ms" "min ms" "max ms"
	printf "$fmt" "cglint (one process, the folders)" "$runs" "$(ms "$cm")" "$(ms "$cn")" "$(ms "$cx")"
	printf "$fmt" "python3 -m py_compile, one per file" "$runs" "$(ms "$em")" "$(ms "$en")" "$(ms "$ex")"
	printf "$fmt" "python3 -m py_compile, one process" "$runs" "$(ms "$om")" "$(ms "$on")" "$(ms "$ox")"
	echo
	echo "ratio cglint/py_compile (median wall time, lower is faster for cglint; issue 14's target: <= 0.5):"
	echo "  cglint (one process) / py_compile one process per file:  $(ratio "$cm" "$em")"
	echo "  cglint (one process) / py_compile one process for all:   $(ratio "$cm" "$om")"
	# issue 43's bar is CPU (user + system, cglint's workers included): what the run costs a
	# machine that does other work, not how many cores it found
	echo "ratio cglint/py_compile one process, median CPU time (issue 43's target: <= 1.0):"
	echo "  $(ratio "$cc" "$oc") ($(ms "$cc") ms / $(ms "$oc") ms of CPU)"
}

# --- the sets ----------------------------------------------------------------------------
tree=""
for p in ${CGLINT_BRIDGE_TREE:-} /tmp/mb6 ../Megatron-Bridge; do
	p=${p%/}
	[ "${p##*/}" = src ] && p=${p%/src}
	if [ -d "$p/src/megatron/bridge/recipes" ]; then tree=$p; break; fi
done
if [ -z "$tree" ]; then
	echo "(no Megatron-Bridge checkout found: set CGLINT_BRIDGE_TREE to time the real recipes)"
elif [[ " ${SECTIONS:-tree} " == *" tree "* ]]; then
	section "Megatron-Bridge recipes + perf_recipes ($tree)" \
		"$tree/src/megatron/bridge/recipes" "$tree/src/megatron/bridge/perf_recipes"
	echo
fi
# --- an editor on a team's recipe: `cglint lsp` re-checking an edit against a cold run --------
lsp_section() {
	local mcore=""
	for p in ${CGLINT_MCORE_TREE:-} /tmp/mlmfull ../Megatron-LM; do
		if [ -d "$p/megatron/core" ]; then mcore=$p; break; fi
	done
	if [ -z "$tree" ] || [ -z "$mcore" ]; then
		echo "(lsp: needs a Megatron-Bridge and a Megatron-LM checkout: CGLINT_BRIDGE_TREE, CGLINT_MCORE_TREE)"
		return
	fi
	mkdir -p "$tmp/team"
	cat >"$tmp/team/team_recipe.py" <<-'EOF'
	from megatron.bridge.recipes.llama import llama3_8b_pretrain_config


	def team_llama3_8b_config():
	    cfg = llama3_8b_pretrain_config()
	    cfg.model.cuda_graph_impl = "transformer_engine"
	    cfg.rng.te_rng_tracker = True
	    cfg.train.micro_batch_size = 2
	    return cfg
	EOF
	echo "== lsp: a 10-line recipe calling Bridge's llama3_8b_pretrain_config(), edited in \`cglint lsp\` (issue 43: edit <= 0.2x cold)"
	python3 "$here/bench_lsp.py" "$cglint" "$tmp/team/team_recipe.py" --edits 10 --runs "$runs" -- \
		--bridge 0.6 --python-path "$tree/src" --python-path "$mcore"
}

for s in ${SECTIONS:-tree inside generated lsp}; do
	case $s in
	tree) ;;        # above
	inside)
		if [ -n "$tree" ]; then
			(cd "$tree/src/megatron/bridge" && section "Megatron-Bridge recipes + perf_recipes, from inside the package ($tree/src/megatron/bridge)" recipes perf_recipes)
			echo
		fi ;;
	generated)
		python3 "$here/gen_recipes.py" "$tmp/recipes" -n "$n" ${SEED:+--seed "$SEED"}
		section "generated recipe modules (tests/bench/gen_recipes.py -n $n)" "$tmp/recipes"
		echo ;;
	lsp) lsp_section ;;
	*) echo "bench_py.sh: unknown section '$s' (tree, inside, generated, lsp)" >&2; exit 2 ;;
	esac
done
exit 0
