#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Copies the sources as a clone of the repository holds them into DEST: the files of REPO_ROOT's
# work tree that git does not ignore, uncommitted changes included, and no build folders and no
# unpacked grammar. The tree-sitter-python tarball tests/setup.sh fetched is copied too, so a
# build from the copy runs cmake/fetch-tree-sitter-python.sh (its checksum and unpacking) without
# the network. For the tests that build cglint the way pip and pre-commit do (tests/pip, tests/precommit).
# usage: tests/tree-copy.sh REPO_ROOT DEST
set -eu
root=$1 dest=$2
cd "$root"
tgz=(third_party/tree-sitter-python/*.tgz)
if [ ! -f "${tgz[0]}" ]; then
	echo "$0: no tree-sitter-python tarball in $root/third_party/tree-sitter-python (tests/setup.sh fetches it)" >&2
	exit 1
fi
mkdir -p "$dest"
git ls-files -z --cached --others --exclude-standard | {
	while IFS= read -r -d '' f; do
		[ ! -e "$f" ] || printf '%s\0' "$f"     # tracked but deleted in the work tree: left out
	done
	printf '%s\0' "${tgz[@]}"
} | tar --null -T - -cf - | tar -xf - -C "$dest"
