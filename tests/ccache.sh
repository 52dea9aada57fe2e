# shellcheck shell=bash disable=SC2034,SC2154 # sourced: sets ccache_args, reads $tmp
# SPDX-License-Identifier: MIT
# Sourced by the tests that build cglint the way pip does (tests/pip, tests/precommit): where
# ccache is installed and CGLINT_TEST_CCACHE names its cache (tests/CMakeLists.txt: in the build
# folder), their builds compile through it. cmake/cglint_wheel.py builds inside each copy of the
# sources, so every copy below $tmp (CCACHE_BASEDIR) compiles the same command lines, and only the
# first build of unchanged sources compiles: the others take seconds. Sets ccache_args, the CMake
# options to add to CMAKE_ARGS (empty without ccache). Needs $tmp.
ccache_args=""
if [ -n "${CGLINT_TEST_CCACHE:-}" ] && command -v ccache >/dev/null; then
	CCACHE_BASEDIR=$(cd "$tmp" && pwd -P)
	# what pip unpacks (an sdist) and pre-commit clones (try-repo) goes in temporary folders: below it
	export TMPDIR=$CCACHE_BASEDIR
	export CCACHE_DIR=$CGLINT_TEST_CCACHE CCACHE_BASEDIR CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE=500M
	unset CCACHE_DISABLE CCACHE_RECACHE CCACHE_PREFIX
	ccache_args="-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache"
fi
