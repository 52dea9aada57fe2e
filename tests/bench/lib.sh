# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# Helpers the benchmark scripts share (sourced, not run). Times are wall clock in microseconds;
# a command's exit status is ignored (cglint exits 1 on findings), so set -e does not abort.

# The CPU time (user + system, microseconds) this shell's finished children have used, from
# the builtin `times` (its second line), into $children_us. Not in a subshell: one starts at 0.
children_cpu() {
	local u s
	times >"${TMPDIR:-/tmp}/cglint-bench-times.$$"
	read -r u s < <(sed -n 2p "${TMPDIR:-/tmp}/cglint-bench-times.$$")
	rm -f "${TMPDIR:-/tmp}/cglint-bench-times.$$"
	children_us=$(awk -v u="$u" -v s="$s" 'function us(t, m) { m = t; sub(/m.*/, "", m); sub(/^[0-9]+m/, "", t); sub(/s$/, "", t)
		return int((m * 60 + t) * 1e6) } BEGIN { print us(u) + us(s) }')
}

# wall time of one run of "$@" into $us, and the CPU time it used (user + system, its worker
# processes included) into $cpu_us: on a shared machine the wall time measures the others' load
# too. $EPOCHREALTIME needs no fork; its separator follows the locale.
measure() {
	local t0 t1 c0
	children_cpu
	c0=$children_us
	if [ -n "${EPOCHREALTIME:-}" ]; then
		t0=${EPOCHREALTIME//[.,]/}
		"$@" >/dev/null 2>&1 || true
		t1=${EPOCHREALTIME//[.,]/}
		us=$((10#$t1 - 10#$t0))
	else
		t0=$(date +%s%N)
		"$@" >/dev/null 2>&1 || true
		t1=$(date +%s%N)
		us=$(((t1 - t0) / 1000))
	fi
	children_cpu
	cpu_us=$((children_us - c0))
}

# "median min max" of the numbers on stdin, one a line
median_min_max() {
	sort -n | awk '{ a[NR] = $1 }
		END { m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
		      printf "%d %d %d\n", m, a[1], a[NR] }'
}

# median, min and max of REPS timed runs after one warm-up: bench REPS CMD...
bench() {
	bench_cpu "$@" | cut -d' ' -f1-3
}

# bench's median, min and max wall time, then the median CPU time: bench_cpu REPS CMD...
bench_cpu() {
	local reps=$1 k
	shift
	"$@" >/dev/null 2>&1 || true
	for ((k = 0; k < reps; k++)); do
		measure "$@"
		echo "$us $cpu_us"
	done >"${TMPDIR:-/tmp}/cglint-bench-cpu.$$"
	echo "$(cut -d' ' -f1 "${TMPDIR:-/tmp}/cglint-bench-cpu.$$" | median_min_max)" \
		"$(cut -d' ' -f2 "${TMPDIR:-/tmp}/cglint-bench-cpu.$$" | median_min_max | cut -d' ' -f1)"
	rm -f "${TMPDIR:-/tmp}/cglint-bench-cpu.$$"
}

# The median wall and median CPU time of the "WALL CPU" lines (microseconds) in FILE.
wall_cpu_medians() {
	echo "$(cut -d' ' -f1 "$1" | median_min_max | cut -d' ' -f1) $(cut -d' ' -f2 "$1" | median_min_max | cut -d' ' -f1)"
}

# median wall, median CPU (microseconds) of REPS runs, through $tmp/t.txt: timed REPS CMD...
timed() {
	local reps=$1 k
	shift
	for ((k = 0; k < reps; k++)); do
		measure "$@"
		echo "$us $cpu_us"
	done >"${tmp:?}/t.txt"
	wall_cpu_medians "$tmp/t.txt"
}

# `cglint --show-clang-args` on stdin with the shim's virtual folder made the on-disk one of
# the repository REPO, so that clang runs with exactly those arguments: shim_on_disk REPO
shim_on_disk() {
	sed -e "s#^/cglint-shim\$#$1/lint/source/shim#" -e "s#^/cglint-shim/stub\$#$1/lint/source/shim/stub#"
}

ms() { awk -v u="$1" 'BEGIN { printf "%.1f", u / 1000 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf (b > 0 ? "%.3f" : "n/a"), (b > 0 ? a / b : 0) }'; }
