#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark cglint's source scanner against `clang -fsyntax-only` on the same generated sources
# (tests/bench/gen_src.py: ~60% .cu with capture regions, 20% host .cpp, 20% .c, 50-800 lines),
# with the identical arguments: the ones `cglint --show-clang-args FILE` prints, where the shim's
# virtual folder /cglint-shim becomes the on-disk lint/source/shim (its stub/ the on-disk shim/stub
# folder). So the ratio is cglint's whole cost (start-up, rule packs, the AST walk, the checks)
# over clang's parse and semantic analysis alone.
#   shim  --cuda-path none: CUDA against cglint's shim headers (the default when no toolkit is found)
#   real  --cuda-path CUDA_PATH: against the toolkit's own headers
#   lsp   the language server re-checking an edited .cu (tests/bench/bench_lsp.py) against a
#         cold one-file run of the same file
# cglint runs three ways: without the cache of precompiled preambles (--no-cache), a first run
# (the cache empty: it makes the preambles), and a second run (the cache as a run of the same
# files left it), the cache in a folder of the benchmark's own (XDG_CACHE_HOME), never the user's.
#
# usage: tests/bench/bench_src.sh [BUILD_DIR] [N]
#   BUILD_DIR    folder holding the cglint binary (default: build)
#   N            number of generated sources (default: 200)
# environment:
#   RUNS         timed runs of each measurement (default: 3); medians are reported
#   SEED         generator seed (default: the generator's own)
#   SECTIONS     which modes to run (default: "shim real lsp")
#   CUDA_PATH    toolkit for the real-header mode (default: /usr/local/cuda)
#   CLANG        clang binary to compare with (default: the one next to the libclang cglint
#                was built against, from BUILD_DIR/CMakeCache.txt, else clang-19, else clang)
#
# Per file: each source is checked by `cglint FILE` (each of the three ways) and by
# `clang -fsyntax-only ARGS FILE`, one process each, in turn, RUNS times; the per-file ratio is
# the ratio of the two medians and the set's total is the sum over files within a run. Folder:
# `cglint -j 1 DIR` and `cglint -j 2 DIR` processes against clang once per file, serially and 2 at
# a time (xargs -P 2). Timing is wall clock from bash's $EPOCHREALTIME around each process
# (hyperfine for the folder rows when installed), output sent to /dev/null, after one untimed
# sanity pass of each tool; beside it the CPU time (user + system, worker processes included,
# from bash's `times`; hyperfine's mean for its rows), which a loaded machine disturbs less.
# Only medians and ratios are reported; nothing is asserted about absolute times.
set -eu

build_dir=${1:-build}
n=${2:-200}
runs=${RUNS:-3}
sections=${SECTIONS:-shim real lsp}
cuda=${CUDA_PATH:-/usr/local/cuda}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cglint=$build_dir/cglint

[ -x "$cglint" ] || { echo "bench_src.sh: no cglint binary at $cglint" >&2; exit 2; }
command -v python3 >/dev/null || { echo "bench_src.sh: python3 not found" >&2; exit 2; }
if [ -z "${CLANG:-}" ]; then
	llvm=$(sed -n 's/^CGLINT_LLVM_DIR:PATH=//p' "$build_dir/CMakeCache.txt" 2>/dev/null || true)
	if [ -n "$llvm" ] && [ -x "$llvm/bin/clang" ]; then
		CLANG=$llvm/bin/clang
	else
		CLANG=$(command -v clang-19 || command -v clang || true)
	fi
fi
if [ -z "$CLANG" ] || ! command -v "$CLANG" >/dev/null; then
	echo "bench_src.sh: no clang found (set CLANG)" >&2
	exit 2
fi
"$cglint" --help 2>&1 | grep -q -- --show-clang-args ||
	{ echo "bench_src.sh: $cglint has no --show-clang-args (source scanner not built in?)" >&2; exit 2; }
case " $sections " in *" real "*)
	[ -f "$cuda/include/cuda_runtime.h" ] || { echo "bench_src.sh: no CUDA toolkit at $cuda (set CUDA_PATH or SECTIONS=shim)" >&2; exit 2; } ;;
esac
have_hf=0
command -v hyperfine >/dev/null && have_hf=1

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cglint-bench-src.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME=$tmp/cache        # cglint's cache of precompiled preambles: the bench's own
fresh=0
# cglint with an empty cache of its own (a first run), for measure/bench: first_run CGLINT ARGS...
first_run() {
	fresh=$((fresh + 1))
	XDG_CACHE_HOME=$tmp/fresh-$fresh "$@"
	rm -rf "$tmp/fresh-$fresh"
}
src=$tmp/src

# shellcheck source=tests/bench/lib.sh
. "$here/lib.sh"

# median, min and max wall time and median CPU time (microseconds) of REPS timed runs of one
# command: bench REPS CMD... No warm-up: the sanity and per-file passes before it have read
# every file and header. A shell function (first_run) is not for hyperfine.
bench() {
	local reps=$1 k
	shift
	if [ "$have_hf" = 1 ] && [ "$(type -t "$1")" = file ]; then
		hyperfine -N -i --runs "$reps" --export-json "$tmp/hf.json" "$(printf '%q ' "$@")" >/dev/null 2>&1
		python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))["results"][0]
print("%d %d %d %d" % tuple(round(x * 1e6) for x in (r["median"], r["min"], r["max"], r["user"] + r["system"])))' "$tmp/hf.json"
		return
	fi
	for ((k = 0; k < reps; k++)); do
		measure "$@"
		echo "$us $cpu_us"
	done >"$tmp/bench.txt"
	echo "$(cut -d' ' -f1 "$tmp/bench.txt" | median_min_max) $(cut -d' ' -f2 "$tmp/bench.txt" | median_min_max | cut -d' ' -f1)"
}

# --- the file set --------------------------------------------------------------------
python3 "$here/gen_src.py" "$src" -n "$n" ${SEED:+--seed "$SEED"}
files=("$src"/*)
lines=$(cat "${files[@]}" | wc -l)
count() { printf '%s\n' "${files[@]}" | grep -c "\\.$1\$" || true; }
echo "sources:  $n ($(count cu) .cu, $(count cpp) .cpp, $(count c) .c;" \
	"$(printf '%s\n' "${files[@]}" | grep -c _bad_ || true) broken on purpose), $lines lines"
echo "cglint:   $("$cglint" --version) ($cglint)"
echo "clang:    $("$CLANG" --version | head -n 1) ($CLANG)"
echo "timing:   $runs runs each, $([ "$have_hf" = 1 ] && echo "hyperfine for the folder rows, ")\$EPOCHREALTIME per process"

# ===================================================================================
# One mode: shim or real
# ===================================================================================
mode_section() {
	local mode=$1 f b rc
	local -a cflags=()
	if [ "$mode" = real ]; then cflags=(--cuda-path "$cuda"); else cflags=(--cuda-path none); fi
	local ad=$tmp/args-$mode
	mkdir -p "$ad"

	# --- the arguments cglint parses each file with, made runnable on disk ------------------
	: >"$tmp/lines-$mode"
	for f in "${files[@]}"; do
		b=$(basename "$f")
		"$cglint" --show-clang-args "${cflags[@]}" "$f" | shim_on_disk "$repo" >"$ad/$b"
		[ -s "$ad/$b" ] || { echo "bench_src.sh: cglint --show-clang-args printed nothing for $b" >&2; exit 1; }
		{ tr '\n' ' ' <"$ad/$b"; echo "$f"; } >>"$tmp/lines-$mode"
	done

	# --- sanity pass (not timed; also the warm-up) ---------------------------------------
	rc=0            # (this run also fills the cache the second runs read)
	"$cglint" "${cflags[@]}" --format json "$src" >"$tmp/cglint-$mode.json" 2>"$tmp/cglint-$mode.err" || rc=$?
	"$cglint" "${cflags[@]}" --no-cache --format json "$src" >"$tmp/cglint-$mode-nc.json" 2>/dev/null || true
	cmp -s "$tmp/cglint-$mode.json" "$tmp/cglint-$mode-nc.json" ||
		{ echo "bench_src.sh: cglint's findings differ with and without the cache" >&2; exit 1; }
	if [ "$rc" -gt 2 ]; then
		echo "bench_src.sh: cglint exited $rc (internal error), timings would be meaningless" >&2
		head -n 5 "$tmp/cglint-$mode.err" >&2
		exit 1
	fi
	local cerr=$tmp/clang-$mode.err bad_clang=0
	: >"$cerr"
	for f in "${files[@]}"; do
		mapfile -t A <"$ad/$(basename "$f")"
		"$CLANG" -fsyntax-only "${A[@]}" "$f" >/dev/null 2>>"$cerr" || bad_clang=$((bad_clang + 1))
	done
	local summary src_rc=0
	summary=$(python3 - "$tmp/cglint-$mode.json" "$src" <<-'EOF'
	# Sources are named NNNN_<cu|cpp|c>_<ok|bad_HAZARD>.<ext> by gen_src.py and mark the
	# hazard's line with "hazard". A broken file counts as found when cglint reports on that
	# line; clean files are summarised by the rules they get.
	import collections, json, os, sys
	d = json.load(open(sys.argv[1]))["diagnostics"]
	by = collections.defaultdict(list)
	for x in d:
	    by[os.path.basename(x["path"])].append(x)
	names = sorted(os.listdir(sys.argv[2]))
	tot = {s: sum(x["severity"] == s for x in d) for s in ("error", "warning", "note")}
	cg9 = collections.Counter(x["rule"] for x in d if x["rule"].startswith("CG9"))
	print(f"{tot['error']} errors / {tot['warning']} warnings / {tot['note']} notes"
	      + (", " + ", ".join(f"{k} x{v}" for k, v in sorted(cg9.items())) if cg9 else ""))
	groups = collections.defaultdict(lambda: [0, 0, set()])
	for f in names:
	    if "_bad_" not in f:
	        continue
	    hz = f.split("_bad_")[1].rsplit(".", 1)[0]
	    src = open(os.path.join(sys.argv[2], f)).read().split("\n")
	    marks = {i + 1 for i, l in enumerate(src) if "hazard" in l}
	    hits = [x for x in by[f] if x["line"] in marks and not x["rule"].startswith("CG9")]
	    g = groups[(f.split("_")[1], hz)]
	    g[0] += bool(hits)
	    g[1] += 1
	    g[2].update(x["rule"] for x in hits)
	found = sum(g[0] for g in groups.values())
	total = sum(g[1] for g in groups.values())
	ok = [f for f in names if "_ok" in f]
	ok_err = sum(any(x["severity"] == "error" for x in by[f]) for f in ok)
	ok_warn = sum(any(x["severity"] == "warning" for x in by[f]) and
	              not any(x["severity"] == "error" for x in by[f]) for f in ok)
	on_clean = collections.Counter(x["rule"] for f in ok for x in by[f])
	print(f"  broken on purpose: {found}/{total} found on the hazard's line; clean: {ok_err}/{len(ok)}"
	      f" with errors, {ok_warn}/{len(ok)} with warnings only"
	      + ("; rules on clean files: " + " ".join(f"{k} x{v}" for k, v in sorted(on_clean.items()))
	         if on_clean else ""))
	for (kind, hz), (h, t, rules) in sorted(groups.items()):
	    print(f"    {kind:4} {hz:12} {h:3}/{t:<3} {' '.join(sorted(rules)) or '-'}")
	unanalysed = sorted({os.path.basename(x["path"]) for x in d if x["rule"] == "CG911"})
	if unanalysed:
	    print(f"  not analysed (CG911): {len(unanalysed)} files, e.g. {' '.join(unanalysed[:3])}")
	sys.exit(4 if unanalysed else 0)
	EOF
	) || src_rc=$?
	echo
	echo "== $mode: $([ "$mode" = real ] && echo "--cuda-path $cuda, the toolkit's headers" || echo "cglint's shim headers")"
	echo "cglint:   (exit $rc) -- $summary"
	echo "clang:    $bad_clang files with errors ($(grep -c 'error:' "$cerr" || true) errors, $(grep -c 'warning:' "$cerr" || true) warnings)"
	local one
	one=$(basename "$(printf '%s\n' "${files[@]}" | grep -m 1 '\.cu$' || echo "${files[0]}")")
	echo "args:     $(tr '\n' ' ' <"$ad/$one")(for $one)"
	if [ "$src_rc" -ne 0 ]; then
		echo "bench_src.sh: cglint did not analyse every source (CG911), timings would be meaningless" >&2
		exit 1
	fi
	echo

	# --- per file: clang FILE and cglint FILE each way, in turn, RUNS times -----------------
	local r k
	local -a order=(clang nocache first second)
	for ((r = 0; r < runs; r++)); do
		for f in "${files[@]}"; do
			b=$(basename "$f")
			mapfile -t A <"$ad/$b"
			for ((k = 0; k < 4; k++)); do   # the order turns each run
				case ${order[(k + r) % 4]} in
				clang) measure "$CLANG" -fsyntax-only "${A[@]}" "$f" ;;
				nocache) measure "$cglint" "${cflags[@]}" --no-cache "$f" ;;
				first) measure first_run "$cglint" "${cflags[@]}" "$f" ;;
				second) measure "$cglint" "${cflags[@]}" "$f" ;;
				esac
				echo "${order[(k + r) % 4]} $b $r $us $cpu_us"
			done
		done
	done >"$tmp/perfile-$mode"

	# --- folder: one cglint process each way, and clang per file 2 at a time ----------------
	local j1 j2 f2 s2 s1 p2
	j1=$(bench "$runs" "$cglint" "${cflags[@]}" --no-cache -j 1 "$src")
	j2=$(bench "$runs" "$cglint" "${cflags[@]}" --no-cache -j 2 "$src")
	f2=$(bench "$runs" first_run "$cglint" "${cflags[@]}" -j 2 "$src")
	s1=$(bench "$runs" "$cglint" "${cflags[@]}" -j 1 "$src")
	s2=$(bench "$runs" "$cglint" "${cflags[@]}" -j 2 "$src")
	p2=$(bench "$runs" xargs -P 2 -L 1 -a "$tmp/lines-$mode" "$CLANG" -fsyntax-only)

	python3 - "$tmp/perfile-$mode" "$src" "$runs" "$j1" "$j2" "$f2" "$s1" "$s2" "$p2" <<-'EOF'
	import collections, os, statistics, sys
	t = collections.defaultdict(dict)           # (tool, file) -> {run: (wall us, cpu us)}
	for line in open(sys.argv[1]):
	    tool, f, r, us, cpu = line.split()
	    t[(tool, f)][int(r)] = (int(us), int(cpu))
	src, runs = sys.argv[2], int(sys.argv[3])
	files = sorted(os.listdir(src))
	med = {(k, i): statistics.median(x[i] for x in v.values()) for k, v in t.items() for i in (0, 1)}
	def total(tool):
	    per_run = [sum(t[(tool, f)][r][0] for f in files) for r in range(runs)]
	    cpu = [sum(t[(tool, f)][r][1] for f in files) for r in range(runs)]
	    return statistics.median(per_run), min(per_run), max(per_run), statistics.median(cpu)
	tools = {"nocache": "cglint --no-cache", "first": "cglint, first run (cache empty)",
	         "second": "cglint, second run (cache kept)", "clang": "clang -fsyntax-only"}
	tot = {k: total(k) for k in tools}
	j1, j2, f2, s1, s2, p2 = ([int(x) for x in a.split()] for a in sys.argv[4:10])
	n = len(files)
	fmt = "%-24s %-38s %5s %11s %9s %9s %11s"
	print(fmt % ("case", "tool", "runs", "median ms", "min ms", "max ms", "CPU ms"))
	def row(case, tool, v):
	    print(fmt % (case, tool, runs, *("%.1f" % (x / 1e3) for x in v)))
	for k, name in tools.items():
	    row(f"all {n}, one per file", name, tot[k])
	row(f"all {n} files", "cglint --no-cache -j 1 (one process)", j1)
	row(f"all {n} files", "cglint --no-cache -j 2 (one process)", j2)
	row(f"all {n} files", "cglint -j 2, first run (cache empty)", f2)
	row(f"all {n} files", "cglint -j 1, second run (cache kept)", s1)
	row(f"all {n} files", "cglint -j 2, second run (cache kept)", s2)
	row(f"all {n} files", "clang, one per file, 2 at a time", p2)
	print()
	kinds = collections.defaultdict(list)
	for f in files:
	    kinds[f.rsplit(".", 1)[1]].append(f)
	for i, what in ((0, "wall time"), (1, "CPU time")):
	    print(f"per-file ratio cglint/clang, {what} (each file's median; lower is faster for cglint):")
	    print("  %-5s %-8s %5s %7s %9s %9s %7s %7s %7s %7s" % ("kind", "cglint", "files", "lines", "clang ms",
	                                                          "cglint ms", "median", "p10", "p90", "max"))
	    for kind in ("cu", "cpp", "c", "all"):
	        fs = files if kind == "all" else kinds.get(kind, [])
	        if not fs:
	            continue
	        nl = sum(open(os.path.join(src, f)).read().count("\n") for f in fs)
	        for tool in ("nocache", "first", "second"):
	            rs = sorted(med[((tool, f), i)] / med[(("clang", f), i)] for f in fs)
	            q = lambda p: rs[min(len(rs) - 1, int(p * len(rs)))]
	            print("  %-5s %-8s %5d %7d %9.1f %9.1f %7.2f %7.2f %7.2f %7.2f" % (
	                "." + kind if kind != "all" else kind, tool, len(fs), nl,
	                statistics.median(med[(("clang", f), i)] for f in fs) / 1e3,
	                statistics.median(med[((tool, f), i)] for f in fs) / 1e3,
	                statistics.median(rs), q(0.1), q(0.9), rs[-1]))
	    print()
	r = lambda a, b: "%.2f" % (a / b) if b else "n/a"
	cl = tot["clang"]
	def ratios(i, what):
	    print(f"ratio cglint/clang ({what} of the whole set, lower is faster for cglint):")
	    print(f"  one process per file, --no-cache / clang:                  {r(tot['nocache'][i], cl[i])}")
	    print(f"  one process per file, first run / clang:                   {r(tot['first'][i], cl[i])}")
	    print(f"  one process per file, second run / clang (goal <= 0.3):    {r(tot['second'][i], cl[i])}")
	    print(f"  cglint --no-cache -j 1 / clang one per file:               {r(j1[i], cl[i])}")
	    print(f"  cglint --no-cache -j 2 / clang 2 at a time:                {r(j2[i], p2[i])}")
	    print(f"  cglint -j 2, first run / clang 2 at a time:                {r(f2[i], p2[i])}")
	    print(f"  cglint -j 1, second run / clang one per file:              {r(s1[i], cl[i])}")
	    print(f"  cglint -j 2, second run / clang 2 at a time (goal <= 0.6): {r(s2[i], p2[i])}")
	ratios(0, "median wall time")
	print()
	ratios(3, "median CPU time")
	EOF
}

# ===================================================================================
# The language server: an edited .cu re-checked from its own preamble, against a cold check
# ===================================================================================
lsp_section() {
	local -a big
	mapfile -t big < <(ls -S "$src"/*.cu | head -n 5)
	echo
	echo "== lsp: an edit's re-check by \`cglint lsp\` against a cold \`cglint FILE\` (shim headers) =="
	echo "the 5 largest .cu files; $runs cold runs and 10 edits each, medians"
	CGLINT_CUDA_PATH=none python3 "$here/bench_lsp.py" "$cglint" "${big[@]}" --edits 10 --runs "$runs"
}

for m in $sections; do
	case $m in
	shim | real) mode_section "$m" ;;
	lsp) lsp_section ;;
	*) echo "bench_src.sh: unknown section '$m' (shim, real, lsp)" >&2; exit 2 ;;
	esac
done
exit 0
