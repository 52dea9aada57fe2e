#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the libFuzzer targets (tests/fuzz/fuzz_*.c) with clang-19 + ASan/UBSan into build-fuzz
# and fuzzes each in turn, seeded from the fixtures (tests/fuzz/one.sh):
#   bash tests/fuzz/run.sh [SECONDS | -runs=N] [NAME...]
# SECONDS (default 120) each, or N runs each; NAME picks targets (lint py proj baseline pack expr
# lsp cdb src; default all). Needs Debian's clang-19 and libclang-rt-19-dev (tests/setup.sh).
set -eu
cd "$(dirname "$0")/../.."
arg=${1:-120}
[ $# -gt 0 ] && shift
case $arg in
-runs=*) limit=$arg ;;
*[!0-9]* | '') echo "usage: $0 [SECONDS | -runs=N] [NAME...]" >&2; exit 2 ;;
*) limit=-max_total_time=$arg ;;
esac
names=${*:-lint py proj baseline pack expr lsp cdb src}
CC=clang-19 cmake -S . -B build-fuzz -DCGLINT_FUZZ=ON -DCGLINT_TESTS=OFF -DCGLINT_PROBE=OFF \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
targets=""
for n in $names; do targets="$targets fuzz_$n"; done
# shellcheck disable=SC2086
cmake --build build-fuzz -j "$(nproc)" --target $targets >/dev/null
for n in $names; do
	echo "== fuzz_$n ($limit)"
	bash tests/fuzz/one.sh "build-fuzz/fuzz_$n" "$limit"
done
