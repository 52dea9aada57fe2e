#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the libFuzzer target with clang + ASan/UBSan and fuzzes for SECONDS (default 120),
# seeded with every YAML and script fixture; then the source scanner for as long. Needs Debian's clang-14 and libclang-rt-14-dev.
set -eu
cd "$(dirname "$0")/../.."
secs=${1:-120}
cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang-14 -DCGLINT_FUZZ=ON -DCGLINT_TESTS=OFF \
      -DCGLINT_WERROR=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-fuzz -j "$(nproc)" --target fuzz_lint fuzz_src >/dev/null
corpus=$(mktemp -d)
find fixtures \( -name '*.yaml' -o -name '*.sh' \) -exec cp {} "$corpus" \;
./build-fuzz/fuzz_lint -max_total_time="$secs" -max_len=65536 -rss_limit_mb=2048 "$corpus"
rm -rf "$corpus"
# the source scanner, seeded with the C/C++/CUDA fixtures (libclang is the slow part here)
corpus=$(mktemp -d)
find fixtures/source -type f \( -name '*.cu' -o -name '*.c' -o -name '*.cpp' -o -name '*.cuh' \) -exec cp {} "$corpus" \;
./build-fuzz/fuzz_src -max_total_time="$secs" -max_len=16384 -rss_limit_mb=4096 "$corpus"
rm -rf "$corpus"
