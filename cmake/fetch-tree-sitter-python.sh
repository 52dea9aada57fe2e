#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Python grammar for tree-sitter (lint/front/py/fe_py.c), unpacked into
# third_party/tree-sitter-python/VERSION/ (src/, LICENSE), where CMake compiles its generated
# parser (CGLINT_TS_PYTHON_DIR). It is not in Debian, so the npm client fetches the pinned release
# (0.23.6, the last with ABI 14, which bookworm's runtime 0.20.7 accepts), checked against its
# sha256; a tarball already in third_party/tree-sitter-python/ is checked and used instead.
# Nothing generated is committed. Does nothing when the grammar is already there.
# Run by tests/setup.sh and by the wheel build (cmake/cglint_wheel.py).
set -eu
cd "$(dirname "$0")/.."

version=0.23.6
sha256=aab5b860d93dbf84b37fed532f7dacc0468ede5387d0c74911d68f964287662a
dir=third_party/tree-sitter-python
[ ! -f "$dir/$version/src/parser.c" ] || exit 0

mkdir -p "$dir"
tgz="$dir/tree-sitter-python-$version.tgz"
if [ ! -f "$tgz" ]; then
	if ! command -v npm >/dev/null; then
		echo "$0: tree-sitter-python $version is needed and npm is not installed to fetch it;" \
			"install npm, or point CMake at the grammar with -DCGLINT_TS_PYTHON_DIR=" >&2
		exit 1
	fi
	(cd "$dir" && npm pack --silent "tree-sitter-python@$version" >/dev/null)
fi
if ! echo "$sha256  $tgz" | sha256sum -c --quiet -; then
	echo "$0: $tgz does not match its pinned sha256; removed" >&2
	rm -f "$tgz"
	exit 1
fi
rm -rf "${dir:?}/$version" "${dir:?}/package"
tar -xzf "$tgz" -C "$dir" package/src package/LICENSE
mv "$dir/package" "$dir/$version"
