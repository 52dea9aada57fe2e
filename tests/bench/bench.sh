#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark cglint against the usual linters on the same generated inputs:
#   yaml     Megatron-Bridge configs (tests/bench/gen_configs.py) against yamllint
#   scripts  Megatron-LM / Bridge-harness launch scripts (tests/bench/gen_scripts.py) against
#            `bash -n` (one process per file, as a pre-commit hook runs it) and, if installed,
#            `shellcheck -S warning` (one process for all the files)
#
# usage: tests/bench/bench.sh [BUILD_DIR] [N]
#   BUILD_DIR    folder holding the cglint binary (default: build)
#   N            number of generated configs, and of generated scripts (default: 300)
# environment:
#   RUNS         timed runs per tool on the whole folder (default: 5, after 1 warm-up)
#   SINGLE_RUNS  timed runs per tool on one file (default: 20, after 1 warm-up)
#   SEED         generator seed (default: the generators' own)
#   SECTIONS     which parts to run (default: "yaml scripts")
#
# yamllint runs with its built-in "relaxed" config (-d relaxed), nothing disabled on top.
# cglint reads the scripts with --mcore 0.17, the target their CUDA-graph flags are written for.
# Timing is wall clock from `date +%s%N` around each process, output sent to /dev/null.
# Only medians and ratios are reported; nothing is asserted about absolute times.
set -eu

build_dir=${1:-build}
n=${2:-300}
runs=${RUNS:-5}
single_runs=${SINGLE_RUNS:-20}
sections=${SECTIONS:-yaml scripts}
here=$(cd "$(dirname "$0")" && pwd)
cglint=$build_dir/cglint

[ -x "$cglint" ] || { echo "bench.sh: no cglint binary at $cglint" >&2; exit 2; }
case " $sections " in *" yaml "*) want_yaml=1 ;; *) want_yaml=0 ;; esac
case " $sections " in *" scripts "*) want_scripts=1 ;; *) want_scripts=0 ;; esac
[ "$want_yaml" = 0 ] || command -v yamllint >/dev/null || { echo "bench.sh: yamllint not found" >&2; exit 2; }
command -v python3 >/dev/null || { echo "bench.sh: python3 not found" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cglint-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cfg=$tmp/configs

# shellcheck source=tests/bench/lib.sh
. "$here/lib.sh"

# ===================================================================================
# YAML configs against yamllint
# ===================================================================================
yaml_section() {
	# --- generate the file set (deterministic) ------------------------------------------
	python3 "$here/gen_configs.py" "$cfg" -n "$n" ${SEED:+--seed "$SEED"}
	# the single-file case uses the largest full dump
	one=$(ls -S "$cfg"/*_fulldump_*.yaml | head -n 1)

	# --- sanity run: what each tool reports on the set (not timed) ---------------------
	rc=0
	"$cglint" --format json "$cfg" >"$tmp/cglint.json" 2>/dev/null || rc=$?
	if [ "$rc" -gt 1 ]; then
		echo "bench.sh: cglint exited $rc (usage/input/internal error), timings would be meaningless" >&2
		exit 1
	fi
	summary=$(python3 - "$tmp/cglint.json" <<-'EOF'
	import json, sys
	d = json.load(open(sys.argv[1]))["diagnostics"]
	sev = {s: sum(x["severity"] == s for x in d) for s in ("error", "warning", "note")}
	files = len({x["path"] for x in d if x["severity"] == "error"})
	print(f"{sev['error']} errors / {sev['warning']} warnings / {sev['note']} notes, "
	      f"{files} files with errors")
	EOF
	)
	yrc=0
	yamllint -f parsable -d relaxed "$cfg" >"$tmp/yamllint.txt" 2>&1 || yrc=$?
	nfull=$(ls "$cfg" | grep -c '_fulldump_')
	lines=$(cat "$cfg"/*.yaml | wc -l)

	echo "files:     $n ($nfull full dumps, $((n - nfull)) overrides), $lines lines"
	echo "cglint:    $($cglint --version) (exit $rc) -- $summary"
	echo "yamllint:  $(yamllint --version) -d relaxed (exit $yrc) -- $(grep -c . "$tmp/yamllint.txt" || true) problems"
	echo "one file:  $(basename "$one") ($(wc -l <"$one") lines)"
	echo

	# --- timings -------------------------------------------------------------------------
	read -r c_med c_min c_max < <(bench "$runs" "$cglint" --format json "$cfg")
	read -r y_med y_min y_max < <(bench "$runs" yamllint -d relaxed "$cfg")
	read -r c1_med c1_min c1_max < <(bench "$single_runs" "$cglint" --format json "$one")
	read -r y1_med y1_min y1_max < <(bench "$single_runs" yamllint -d relaxed "$one")

	fmt="%-22s %-9s %6s %11s %9s %9s\n"
	printf "$fmt" case tool runs "median ms" "min ms" "max ms"
	printf "$fmt" "folder ($n files)" cglint "$runs" "$(ms "$c_med")" "$(ms "$c_min")" "$(ms "$c_max")"
	printf "$fmt" "folder ($n files)" yamllint "$runs" "$(ms "$y_med")" "$(ms "$y_min")" "$(ms "$y_max")"
	printf "$fmt" "single full dump" cglint "$single_runs" "$(ms "$c1_med")" "$(ms "$c1_min")" "$(ms "$c1_max")"
	printf "$fmt" "single full dump" yamllint "$single_runs" "$(ms "$y1_med")" "$(ms "$y1_min")" "$(ms "$y1_max")"
	echo
	echo "ratio cglint/yamllint (median wall time, lower is faster for cglint):"
	echo "  folder:      $(ratio "$c_med" "$y_med")"
	echo "  single file: $(ratio "$c1_med" "$y1_med")"
}

# ===================================================================================
# Launch scripts against bash -n and shellcheck
# ===================================================================================
# `bash -n` once per file, as a pre-commit hook or a CI loop runs it
bash_n_each() {
	local f bad=0
	for f in "$@"; do bash -n "$f" || bad=$((bad + 1)); done
	return $((bad > 0))
}

# cglint once per file, for the like-for-like comparison with bash -n
cglint_each() {
	local f
	for f in "$@"; do "$cglint" --mcore 0.17 --format json "$f" || true; done
}

scripts_section() {
	local sh=$tmp/scripts
	python3 "$here/gen_scripts.py" "$sh" -n "$n" ${SEED:+--seed "$SEED"}
	local files=("$sh"/*.sh)
	local big
	big=$(ls -S "$sh"/*.sh | head -n 1)
	local have_sc=0
	command -v shellcheck >/dev/null && have_sc=1

	# --- sanity run (not timed): cglint must read the scripts and find the broken ones ---
	local rc=0
	"$cglint" --mcore 0.17 --format json "$sh" >"$tmp/scripts.json" 2>/dev/null || rc=$?
	if [ "$rc" -gt 1 ]; then
		echo "bench.sh: cglint exited $rc on the scripts (usage/input/internal error)" >&2
		"$cglint" --mcore 0.17 "$sh" 2>&1 | grep -E 'CG9[0-9][0-9]' | head -n 5 >&2
		exit 1
	fi
	local found prc=0
	found=$(python3 - "$tmp/scripts.json" "$sh" <<-'EOF'
	# Scripts are named NNNN_<mlm|perf>_<family>_<ok|bad>_<scenario>.sh by gen_scripts.py. A
	# broken script counts as found when it gets a rule that no clean script gets (advisory
	# notes such as CG142 fire on clean scripts too; Megatron-LM's own autofixes are notes).
	import collections, json, os, re, sys
	d = json.load(open(sys.argv[1]))["diagnostics"]
	rules = collections.defaultdict(set)
	sev = collections.defaultdict(set)
	for x in d:
	    b = os.path.basename(x["path"])
	    rules[b].add(x["rule"])
	    sev[b].add(x["severity"])
	tot = {s: sum(x["severity"] == s for x in d) for s in ("error", "warning", "note")}
	names = sorted(f for f in os.listdir(sys.argv[2]) if f.endswith(".sh"))
	bad = [f for f in names if "_bad_" in f]
	ok = [f for f in names if "_ok_" in f]
	on_clean = set().union(set(), *(rules[f] for f in ok))
	hit = [f for f in bad if rules[f] - on_clean]
	hit_err = sum("error" in sev[f] for f in hit)
	ok_err = sum("error" in sev[f] for f in ok)
	ok_warn = sum("warning" in sev[f] and "error" not in sev[f] for f in ok)
	print(f"{tot['error']} errors / {tot['warning']} warnings / {tot['note']} notes")
	print(f"  broken on purpose: {len(hit)}/{len(bad)} found ({hit_err} with an error); "
	      f"clean: {ok_err}/{len(ok)} with errors, {ok_warn}/{len(ok)} with warnings only"
	      f"{'; rules on clean scripts: ' + ' '.join(sorted(on_clean)) if on_clean else ''}")
	groups = collections.defaultdict(list)
	for f in bad:
	    m = re.match(r"\d+_(mlm|perf)_.*_bad_(.+)\.sh$", f)
	    groups[(m.group(1), m.group(2))].append(f)
	for (kind, label), fs in sorted(groups.items()):
	    ids = sorted(set().union(*(rules[f] for f in fs)) - on_clean)
	    n_hit = sum(f in hit for f in fs)
	    print(f"    {kind:4} {label:16} {n_hit:3}/{len(fs):<3} {' '.join(ids) or '-'}")
	sys.exit(0 if hit or not bad else 4)
	EOF
	) || prc=$?
	if [ "$prc" -ne 0 ]; then
		echo "$found"
		echo "bench.sh: cglint reported none of the broken scripts (is the shell front-end built?)," \
			"timings would be meaningless" >&2
		exit 1
	fi
	local lines nmlm nbad src=0 sc_summary="not installed"
	lines=$(cat "${files[@]}" | wc -l)
	nmlm=$(printf '%s\n' "${files[@]}" | grep -c '_mlm_')
	nbad=$(printf '%s\n' "${files[@]}" | grep -c '_bad_')
	local bash_v bash_bad sc_v sc_n sc_files
	bash_n_each "${files[@]}" 2>"$tmp/bash_n.txt" || true
	bash_v=$(bash --version | sed -n '1s/.*version \([^ ]*\).*/\1/p')
	bash_bad=$(cut -d: -f1 "$tmp/bash_n.txt" | sort -u | grep -c . || true)
	if [ "$have_sc" = 1 ]; then
		shellcheck -S warning -f gcc "${files[@]}" >"$tmp/shellcheck.txt" 2>&1 || src=$?
		sc_v=$(shellcheck --version | sed -n 's/^version: //p')
		sc_n=$(grep -c ': warning: \|: error: ' "$tmp/shellcheck.txt" || true)
		sc_files=$(cut -d: -f1 "$tmp/shellcheck.txt" | sort -u | grep -c . || true)
		sc_summary="$sc_v -S warning (exit $src) -- $sc_n findings in $sc_files files"
	fi

	echo "scripts:    $n ($nmlm Megatron-LM, $((n - nmlm)) Bridge harness;" \
		"$nbad broken on purpose), $lines lines"
	echo "cglint:     --mcore 0.17 (exit $rc) -- $found"
	echo "bash -n:    $bash_v, one process per file -- $bash_bad files with syntax errors"
	echo "shellcheck: $sc_summary"
	echo "one file:   $(basename "$big") ($(wc -l <"$big") lines)"
	echo

	# --- timings -------------------------------------------------------------------------
	local cm cn cx pm pn px bm bn bx sm=0 sn=0 sx=0 c1m c1n c1x b1m b1n b1x s1m=0 s1n=0 s1x=0
	read -r cm cn cx < <(bench "$runs" "$cglint" --mcore 0.17 --format json "$sh")
	read -r pm pn px < <(bench "$runs" cglint_each "${files[@]}")
	read -r bm bn bx < <(bench "$runs" bash_n_each "${files[@]}")
	[ "$have_sc" = 0 ] || read -r sm sn sx < <(bench "$runs" shellcheck -S warning "${files[@]}")
	read -r c1m c1n c1x < <(bench "$single_runs" "$cglint" --mcore 0.17 --format json "$big")
	read -r b1m b1n b1x < <(bench "$single_runs" bash -n "$big")
	[ "$have_sc" = 0 ] || read -r s1m s1n s1x < <(bench "$single_runs" shellcheck -S warning "$big")

	local fmt="%-22s %-18s %6s %11s %9s %9s\n"
	printf "$fmt" case tool runs "median ms" "min ms" "max ms"
	printf "$fmt" "folder ($n scripts)" "cglint" "$runs" "$(ms "$cm")" "$(ms "$cn")" "$(ms "$cx")"
	printf "$fmt" "folder ($n scripts)" "cglint per file" "$runs" "$(ms "$pm")" "$(ms "$pn")" "$(ms "$px")"
	printf "$fmt" "folder ($n scripts)" "bash -n per file" "$runs" "$(ms "$bm")" "$(ms "$bn")" "$(ms "$bx")"
	[ "$have_sc" = 0 ] ||
		printf "$fmt" "folder ($n scripts)" "shellcheck" "$runs" "$(ms "$sm")" "$(ms "$sn")" "$(ms "$sx")"
	printf "$fmt" "largest script" "cglint" "$single_runs" "$(ms "$c1m")" "$(ms "$c1n")" "$(ms "$c1x")"
	printf "$fmt" "largest script" "bash -n" "$single_runs" "$(ms "$b1m")" "$(ms "$b1n")" "$(ms "$b1x")"
	[ "$have_sc" = 0 ] ||
		printf "$fmt" "largest script" "shellcheck" "$single_runs" "$(ms "$s1m")" "$(ms "$s1n")" "$(ms "$s1x")"
	echo
	echo "ratio cglint/alternative (median wall time, lower is faster for cglint):"
	echo "  folder, cglint (one process) / bash -n (per file):    $(ratio "$cm" "$bm")"
	echo "  folder, cglint per file / bash -n per file:           $(ratio "$pm" "$bm")"
	[ "$have_sc" = 0 ] ||
		echo "  folder, cglint / shellcheck (one process each):       $(ratio "$cm" "$sm")"
	echo "  single file, cglint / bash -n:                        $(ratio "$c1m" "$b1m")"
	[ "$have_sc" = 0 ] ||
		echo "  single file, cglint / shellcheck:                     $(ratio "$c1m" "$s1m")"
}

if [ "$want_yaml" = 1 ]; then
	yaml_section
fi
if [ "$want_scripts" = 1 ]; then
	[ "$want_yaml" = 0 ] || echo
	scripts_section
fi
exit 0
