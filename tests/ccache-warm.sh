#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fills the compiler cache that tests/pip and tests/precommit build through (tests/ccache.sh) with
# one wheel build of a copy of the sources (with the GPU probe where CUDA is), as they build it,
# so that their first run after tests/setup.sh (which runs this) compiles only what changed since.
# Does nothing without ccache.
# usage: tests/ccache-warm.sh BUILD_DIR
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
CGLINT_TEST_CCACHE="$(cd "$1" && pwd)/test-ccache"
export CGLINT_TEST_CCACHE
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$root/tests/ccache.sh"
[ -n "$ccache_args" ] || exit 0
bash "$root/tests/tree-copy.sh" "$root" "$tmp/src"
cd "$tmp/src"
CMAKE_ARGS="$ccache_args" CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2} \
	python3 -c 'import sys; sys.path[:0] = ["cmake"]; import cglint_wheel as b; b.build_wheel(sys.argv[1])' "$tmp"
