#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the libFuzzer target with clang + ASan/UBSan and fuzzes for SECONDS (default 120),
# seeded with every YAML and script fixture. Needs Debian's clang-14 and libclang-rt-14-dev.
set -eu
cd "$(dirname "$0")/../.."
secs=${1:-120}
cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang-14 -DCGLINT_FUZZ=ON -DCGLINT_TESTS=OFF \
      -DCGLINT_WERROR=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-fuzz -j "$(nproc)" --target fuzz_lint >/dev/null
corpus=$(mktemp -d)
find fixtures \( -name '*.yaml' -o -name '*.sh' \) -exec cp {} "$corpus" \;
./build-fuzz/fuzz_lint -max_total_time="$secs" -max_len=65536 -rss_limit_mb=2048 "$corpus"
rm -rf "$corpus"
