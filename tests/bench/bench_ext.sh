#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark cglint on PyTorch C++ extensions against clang-19 -fsyntax-only with the same
# arguments (the ones `cglint --show-clang-args` prints for the compile command, the shim's
# virtual folder as the on-disk lint/source/shim), issue 43:
#   ext   one extension (.cpp using at::cuda::CUDAGraph capture), compile_commands.json naming
#         the include folders of Debian's libtorch-dev: a CPU build, whose missing
#         c10/cuda/impl/cuda_cmake_macros.h the shim supplies, so cglint and clang read it whole
#   te    TransformerEngine's transformer_engine/pytorch/csrc (its .cpp files), a compile
#         database written here with TransformerEngine's include folders and libtorch's; the
#         folder at -j 2 against clang two files at a time
# cglint runs cold (an empty cache of preambles) and warm (a second run, the cache kept).
#
# usage: tests/bench/bench_ext.sh [BUILD_DIR]
# environment:
#   RUNS          timed runs of each measurement (default: 3); medians reported
#   SECTIONS      which to run (default: "ext te")
#   CGLINT_TE_TREE  a TransformerEngine checkout (default: /tmp/te_base, ../TransformerEngine)
#   CLANG         the clang to compare with (default: clang-19)
# Wall and CPU time (user + system of the children) from lib.sh's measure. Nothing asserted.
set -eu

build_dir=${1:-build}
runs=${RUNS:-3}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cglint=$(cd "$build_dir" && pwd)/cglint
CLANG=${CLANG:-clang-19}
[ -x "$cglint" ] || { echo "bench_ext.sh: no cglint binary at $cglint" >&2; exit 2; }
command -v "$CLANG" >/dev/null || { echo "bench_ext.sh: $CLANG not found" >&2; exit 2; }
[ -f /usr/include/torch/extension.h ] ||
	{ echo "bench_ext.sh: no libtorch headers (/usr/include/torch: apt-get install libtorch-dev)" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cglint-bench-ext.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/bench/lib.sh
. "$here/lib.sh"
py=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
torch_inc="-I/usr/include/torch/csrc/api/include -I$py"

# clang -fsyntax-only on a file with the arguments cglint parses it with: clang_one DB FILE
clang_one() {
	local db=$1 f=$2
	mapfile -t args < <("$cglint" --show-clang-args -p "$db" "$f" 2>/dev/null | shim_on_disk "$repo")
	"$CLANG" -fsyntax-only "${args[@]}" "$f"
}
export -f clang_one shim_on_disk
export cglint repo CLANG

# cglint with an empty cache (median of RUNS), then with that cache kept: cold_warm ARGS...
cold_warm() {
	local k cw cc ww wc
	: >"$tmp/cold.txt"
	for ((k = 0; k < runs; k++)); do
		rm -rf "$tmp/cache"
		XDG_CACHE_HOME=$tmp/cache measure "$cglint" "$@"
		echo "$us $cpu_us" >>"$tmp/cold.txt"
	done
	read -r cw cc < <(wall_cpu_medians "$tmp/cold.txt")
	export XDG_CACHE_HOME=$tmp/cache
	read -r ww wc < <(timed "$runs" "$cglint" "$@")
	unset XDG_CACHE_HOME
	echo "$cw $cc $ww $wc"
}

row() { printf "%-44s %10s %10s %8s %8s\n" "$@"; }

ext_section() {
	mkdir -p "$tmp/ext/build"
	cat >"$tmp/ext/graph_ext.cpp" <<-'EOF'
	#include <torch/extension.h>
	#include <ATen/cuda/CUDAGraph.h>
	#include <ATen/cuda/CUDAContext.h>
	#include <c10/cuda/CUDAStream.h>

	torch::Tensor step(torch::Tensor x) { return x * 2 + 1; }

	torch::Tensor capture_and_replay(torch::Tensor x, int iters) {
	  auto stream = c10::cuda::getStreamFromPool();
	  at::cuda::CUDAGraph graph;
	  auto out = step(x);
	  graph.capture_begin();
	  out = step(x);
	  cudaStreamSynchronize(stream.stream());
	  graph.capture_end();
	  for (int i = 0; i < iters; ++i) graph.replay();
	  return out;
	}

	PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("capture_and_replay", &capture_and_replay); }
	EOF
	cat >"$tmp/ext/build/compile_commands.json" <<-EOF
	[{"directory": "$tmp/ext", "file": "$tmp/ext/graph_ext.cpp",
	  "command": "c++ -DTORCH_EXTENSION_NAME=graph_ext -DTORCH_API_INCLUDE_EXTENSION_H $torch_inc -std=c++17 -O2 -fPIC -c graph_ext.cpp -o graph_ext.o"}]
	EOF
	echo "== ext: one PyTorch extension, Debian's libtorch (a CPU build), $RUNS_TXT"
	(cd "$tmp/ext" && "$cglint" --no-cache -p build graph_ext.cpp 2>&1 | grep -o '\[CG[0-9]*[^]]*\]' | sort | uniq -c | tr '\n' ' '); echo
	local cw cc ww wc lw lc
	read -r lw lc < <(cd "$tmp/ext" && timed "$runs" clang_one build graph_ext.cpp)
	read -r cw cc ww wc < <(cd "$tmp/ext" && cold_warm -p build graph_ext.cpp)
	row "case" "wall ms" "CPU ms" "wall x" "CPU x"
	row "clang -fsyntax-only, the same arguments" "$(ms "$lw")" "$(ms "$lc")" "" ""
	row "cglint, cold (empty cache; goal <= 1.2x)" "$(ms "$cw")" "$(ms "$cc")" "$(ratio "$cw" "$lw")" "$(ratio "$cc" "$lc")"
	row "cglint, second run (goal <= 0.3x)" "$(ms "$ww")" "$(ms "$wc")" "$(ratio "$ww" "$lw")" "$(ratio "$wc" "$lc")"
	echo
}

te_section() {
	local te=""
	for p in ${CGLINT_TE_TREE:-} /tmp/te_base ../TransformerEngine; do
		if [ -d "$p/transformer_engine/pytorch/csrc" ]; then te=$(cd "$p" && pwd); break; fi
	done
	[ -n "$te" ] || { echo "(te: no TransformerEngine checkout: set CGLINT_TE_TREE)"; return; }
	local -a files
	mapfile -t files < <(find "$te/transformer_engine/pytorch/csrc" -name '*.cpp' | sort)
	mkdir -p "$tmp/te"
	python3 - "$te" "$tmp/te/compile_commands.json" "$torch_inc" "${files[@]}" <<-'EOF'
	import json, sys
	te, out, torch_inc, files = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
	inc = " ".join(f"-I{te}/{d}" for d in ("transformer_engine/common/include", "transformer_engine/pytorch/csrc",
	                                        "transformer_engine", "transformer_engine/common"))
	json.dump([{"directory": te, "file": f, "command": f"c++ -std=c++17 {inc} {torch_inc} "
	            f"-DTORCH_EXTENSION_NAME=transformer_engine_torch -DTORCH_API_INCLUDE_EXTENSION_H -c {f}"}
	           for f in files], open(out, "w"), indent=1)
	EOF
	echo "== te: $te/transformer_engine/pytorch/csrc, ${#files[@]} .cpp files (TransformerEngine $(git -C "$te" rev-parse --short=9 HEAD 2>/dev/null || echo "at an unknown commit")), $RUNS_TXT"
	local cw cc ww wc lw lc
	read -r lw lc < <(timed "$runs" bash -c 'printf "%s\n" "${@:2}" | xargs -P 2 -I{} bash -c "clang_one $1 {} >/dev/null 2>&1"' _ "$tmp/te" "${files[@]}")
	read -r cw cc ww wc < <(cold_warm -j 2 -p "$tmp/te" "${files[@]}")
	row "case" "wall ms" "CPU ms" "wall x" "CPU x"
	row "clang -fsyntax-only, 2 files at a time" "$(ms "$lw")" "$(ms "$lc")" "" ""
	row "cglint -j 2, cold (empty cache)" "$(ms "$cw")" "$(ms "$cc")" "$(ratio "$cw" "$lw")" "$(ratio "$cc" "$lc")"
	row "cglint -j 2, second run (goal <= 0.3x)" "$(ms "$ww")" "$(ms "$wc")" "$(ratio "$ww" "$lw")" "$(ratio "$wc" "$lc")"
	echo
}

RUNS_TXT="median of $runs runs; $("$cglint" --version | head -n 1); $("$CLANG" --version | head -n 1)"
for s in ${SECTIONS:-ext te}; do
	case $s in
	ext) ext_section ;;
	te) te_section ;;
	*) echo "bench_ext.sh: unknown section '$s' (ext, te)" >&2; exit 2 ;;
	esac
done
