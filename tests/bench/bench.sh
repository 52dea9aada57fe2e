#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark cglint against yamllint on the same generated Megatron-Bridge configs.
#
# usage: tests/bench/bench.sh [BUILD_DIR] [N]
#   BUILD_DIR    folder holding the cglint binary (default: build)
#   N            number of generated configs (default: 300)
# environment:
#   RUNS         timed runs per tool on the whole folder (default: 5, after 1 warm-up)
#   SINGLE_RUNS  timed runs per tool on one full dump (default: 20, after 1 warm-up)
#   SEED         generator seed (default: the generator's own)
#
# yamllint runs with its built-in "relaxed" config (-d relaxed), nothing disabled on top.
# Timing is wall clock from `date +%s%N` around each process, output sent to /dev/null.
# Only medians and ratios are reported; nothing is asserted about absolute times.
set -eu

build_dir=${1:-build}
n=${2:-300}
runs=${RUNS:-5}
single_runs=${SINGLE_RUNS:-20}
here=$(cd "$(dirname "$0")" && pwd)
cglint=$build_dir/cglint

[ -x "$cglint" ] || { echo "bench.sh: no cglint binary at $cglint" >&2; exit 2; }
command -v yamllint >/dev/null || { echo "bench.sh: yamllint not found" >&2; exit 2; }
command -v python3 >/dev/null || { echo "bench.sh: python3 not found" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cglint-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cfg=$tmp/configs

# --- generate the file set (deterministic) ------------------------------------------
python3 "$here/gen_configs.py" "$cfg" -n "$n" ${SEED:+--seed "$SEED"}
# the single-file case uses the largest full dump
one=$(ls -S "$cfg"/*_fulldump_*.yaml | head -n 1)

# --- helpers -------------------------------------------------------------------------
# elapsed wall time of one run of "$@", in microseconds; the exit status is ignored
# (cglint exits 1 on findings), so set -e does not abort.
time_us() {
	local t0 t1
	t0=$(date +%s%N)
	"$@" >/dev/null 2>&1 || true
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000))
}

# median, min and max (microseconds) of REPS timed runs after one warm-up: bench REPS CMD...
bench() {
	local reps=$1 k
	shift
	"$@" >/dev/null 2>&1 || true
	for ((k = 0; k < reps; k++)); do time_us "$@"; done |
		sort -n | awk '{ a[NR] = $1 }
			END { m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
			      printf "%d %d %d\n", m, a[1], a[NR] }'
}

ms() { awk -v u="$1" 'BEGIN { printf "%.1f", u / 1000 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf (b > 0 ? "%.3f" : "n/a"), (b > 0 ? a / b : 0) }'; }

# --- sanity run: what each tool reports on the set (not timed) ---------------------
rc=0
"$cglint" --format json "$cfg" >"$tmp/cglint.json" 2>/dev/null || rc=$?
if [ "$rc" -gt 1 ]; then
	echo "bench.sh: cglint exited $rc (usage/input/internal error), timings would be meaningless" >&2
	exit 1
fi
summary=$(python3 - "$tmp/cglint.json" <<'EOF'
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
exit 0
